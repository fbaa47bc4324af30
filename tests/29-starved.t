#!/usr/bin/perl
# Starvation per stage: every thread's run-queue wait over the window
# (threads.csv's wait_pct), each row's ends' (from_wait_pct, to_wait_pct)
# and starved.  The broker's threads (main and I/O) pinned alone on CPU 1,
# everything else on CPU 0: a CPU hog the test starts on CPU 1 makes the
# broker's rows starved, and the table names it, its thread and its wait.  Without the hog,
# at a pace the stages keep easily, no row is starved (at 15 %), unless the machine
# is busy anyway (the controller's own wait or steal, or what other
# processes took of the CPUs while it ran, says so: that check is then
# skipped).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Test::More;
use Time::HiRes qw(time);

chdir "$FindBin::Bin/..";
my @ncpu = glob('/sys/devices/system/cpu/cpu[0-9]*');
plan skip_all => 'needs 2 CPUs' if @ncpu < 2;
my @pin = map { ('--set', $_) } qw(broker.cpus=1 broker.io_cpus=stage pub.cpus=0
    pub.io_cpus=stage sub.cpus=0 sub.io_cpus=stage controller.cpus=0);
# --keep-going: a hog on top of a busy machine may stall a window (and
# its retry) for half a second; that is 31-stalled.t's business
my @run = (qw(run topologies/proxy.cfg --sizes 1024 --duration 1 --keep-going), @pin);

# plan: more busy threads than CPUs is a warning
my ($rc, undef, $plan) = hopbench('plan', 'topologies/proxy.cfg', @pin);
is($rc, 0, 'plan: exit 0');
like($plan, qr/^hopbench: warning: 7 busy threads .* may run on 2 CPUs \(0-1\)/m,
     'plan: warns that 7 busy threads share 2 CPUs');

# The hog on the broker's CPU
my $hog = fork // die "fork: $!";
if ($hog == 0) {
    exec('taskset', '-c', '1', 'perl', '-e', 'alarm 120; 1 while 1') or exit 127;
}
my $out = tmp();
($rc, my $stdout, my $err) = hopbench(@run, '--output', $out);
my $jdir = tmp();
my ($jrc, $jout, $jerr) = hopbench(@run, qw(--format json --output), $jdir);
kill 'TERM', $hog;
waitpid $hog, 0;
is($rc, 0, 'with a hog on CPU 1: exit 0') or diag $err;
my $results = csv("$out/results.csv");
my @rows = grep { $_->{repeat} eq '1' } @{ $results->{rows} };
is(scalar(@rows), 2, 'two rows');
ok((grep { $_ eq 'starved' } @{ $results->{columns} }) &&
   (grep { $_ eq 'from_wait_pct' } @{ $results->{columns} }),
   'results.csv has from_wait_pct .. starved');
my ($into, $out_of) = @rows;
ok($into->{to_wait_pct} > 5, "hop 1 (into the broker): the broker waited $into->{to_wait_pct} % > 5 %");
ok($out_of->{from_wait_pct} > 5, "hop 2 (out of it): the broker waited $out_of->{from_wait_pct} % > 5 %");
is($into->{starved}, 1, 'hop 1: starved = 1');
is($out_of->{starved}, 1, 'hop 2: starved = 1');
like($stdout, qr/^\s+1\s+pub -> broker .*starved$/m, 'the table marks hop 1 starved');
# Each starved row's line names the end that waited more (on a machine
# busy with more than the hog, pub and sub, four busy threads on CPU 0,
# can wait more than the broker)
for my $row (grep { $_->{starved} eq '1' } @rows) {
    my $end = $row->{from_wait_pct} > $row->{to_wait_pct} ? $row->{from} : $row->{to};
    like($stdout, qr/^\s+starved: stage \Q$end\E waited [\d.]+ % of the window for a CPU \(thread \S+\); busy threads that may run on its CPUs/m,
         "hop $row->{hop}: a line under the table names $end, the end that waited more "
         . "($row->{from_wait_pct} / $row->{to_wait_pct} %)") or diag $stdout;
}
my $json = eval { decode_json($jout) } // {};
is($jrc, 0, '--format json: exit 0') or diag $jerr;
is($json->{rows}[0]{starved}, 1, 'JSON: starved');
ok($json->{rows}[0]{to_wait_pct} > 5, 'JSON: to_wait_pct');
my $threads = csv("$out/threads.csv");
my ($named) = $stdout =~ /starved: stage broker waited [\d.]+ % of the window for a CPU \(thread (\S+)\)/;
SKIP: {
    skip 'pub or sub waited more than the broker on both rows: no line names it', 1 unless $named;
    my ($broker) = grep { $_->{stage} eq 'broker' && $_->{thread} eq $named
        && $_->{repeat} eq '1' } @{ $threads->{rows} };
    ok($broker && $broker->{wait_pct} > 5, "threads.csv: the broker's thread the table names ($named) waited "
       . ($broker ? $broker->{wait_pct} : '?') . ' %');
}
my @mine = grep { $_->{stage} eq 'broker' && $_->{repeat} eq '1' } @{ $threads->{rows} };
my ($most) = sort { $b <=> $a } map { $_->{wait_pct} } @mine;
ok(@mine >= 2 && abs(($most // -1) - $into->{to_wait_pct}) < 0.011,
   "hop 1's to_wait_pct ($into->{to_wait_pct}) is the most any broker thread waited ("
   . ($most // '?') . ')');
ok(!grep({ $_->{allowed_cpus} ne '1' } @mine), 'threads.csv: every broker thread on CPU 1');
ok(@mine && !grep({ $_->{nonvoluntary_switches} !~ /^\d+$/ } @mine), 'threads.csv: nonvoluntary_switches');

# No hog, at 1000 msgs/s: the stages mostly sleep (six threads woken a
# thousand times a second on CPU 0 wait a little for each other: held to
# starved_pct = 15).  What else ran on the
# machine meanwhile: its busy CPU time (/proc/stat) less the run's own
$out = tmp();
my ($busy0, $wall0, $ours0) = (machine_busy(), time, children_cpu());
($rc, $stdout, $err) = hopbench(@run, qw(--set rate=1000 --set starved_pct=15 --output), $out);
my $others = (machine_busy() - $busy0) - (children_cpu() - $ours0);
my $share = 100 * $others / (@ncpu * (time - $wall0 || 1));
is($rc, 0, 'without the hog: exit 0') or diag $err;
@rows = grep { $_->{repeat} eq '1' } @{ csv("$out/results.csv")->{rows} };
my ($controller) = grep { $_->{stage} eq 'controller' && $_->{thread} eq 'main' }
    @{ csv("$out/threads.csv")->{rows} };
my $busy = ($controller->{wait_pct} // 100) > 1 || ($rows[0]{steal_pct} // 100) > 1
    || $share > 5;
SKIP: {
    skip sprintf('the machine is busy: the controller itself waited %s %% of the window '
        . 'for a CPU, steal %s %%, other processes took %.0f %% of its CPUs',
        $controller->{wait_pct} // '?', $rows[0]{steal_pct} // '?', $share), 1 if $busy;
    ok(!grep({ $_->{starved} ne '0' } @rows), 'without the hog: starved = 0 on every row')
        or diag join "\n", map { "hop $_->{hop}: $_->{from_wait_pct} / $_->{to_wait_pct}" } @rows;
}
ok(!grep({ $_->{starved} !~ /^[01]$/ } @rows), 'without the hog: starved is 0 or 1 (all local)');
done_testing();

# Busy CPU seconds of the machine so far (every field of /proc/stat's cpu
# line but idle and iowait), and of this test's finished children
sub machine_busy {
    open my $fh, '<', '/proc/stat' or return 0;
    my @f = split ' ', scalar <$fh>;
    shift @f;
    my $busy = 0;
    $busy += $f[$_] // 0 for grep { $_ != 3 && $_ != 4 } 0 .. 7;
    return $busy / 100; #  USER_HZ
}

sub children_cpu {
    my (undef, undef, $cuser, $csys) = times;
    return $cuser + $csys;
}

sub slurp {
    my ($path) = @_;
    open my $fh, '<', $path or return '{}';
    local $/;
    return <$fh>;
}
