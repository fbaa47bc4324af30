#!/usr/bin/perl
# hopbench size runs its trials in the session run's trials run in
# (src/run/session.h): a trial that stalls is retried and said as run
# says it, the pipeline's warnings are said as run says them, and the
# file limit is raised for a candidate that needs it.
use strict;
use warnings;
use lib 'tests/lib';
use Hopbench;
use JSON::PP;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use Test::More;

# A sizing run's exit by the rule: 0 when one was proven to meet, else 3
# (none meets) or 4 (undecided or inconclusive on this machine)
sub by_the_rule {
    my ($rc, $dir) = @_;
    my @rows = @{ csv("$dir/sizing.csv")->{rows} };
    return $rc == 0 if grep { $_->{answer} == 1 } @rows;
    return $rc == (grep({ $_->{verdict} =~ /^(undecided|inconclusive)/ } @rows) ? 4 : 3);
}

# ------------------------------------------------------------------------
# A stalled trial is retried.  The subscriber is a process of its own;
# once the first capacity trial's rows are in results.csv, the second
# (its window 1.5 s) is under way, and the subscriber is stopped for 1 s
# of it
my $out = tmp() . '/stall';
my $pid = fork // die "fork: $!";
if ($pid == 0) {
    open STDOUT, '>', "$out.out" or exit 127;
    open STDERR, '>', "$out.err" or exit 127;
    exec('./hopbench', 'size', 'topologies/proxy.cfg', '--sizes', '1024', '--quiet',
         '--set', 'sub.process=own', '--set', 'search_trial=1.5',
         '--set', 'size_goal_seconds=1.5', '--set', 'size_window=0.1', '--prove', '0',
         '--target', 'rate=1000', '--output', $out) or exit 127;
}
my ($child, $deadline) = (0, time + 30);
until ($child || time > $deadline || waitpid($pid, WNOHANG)) {
    ($child) = map { /(\d+)/ ? $1 : () } `pgrep -P $pid`;
    sleep 0.05;
}
sleep 0.05 until time > $deadline
    || (-e "$out/results.csv" && (() = Hopbench::slurp("$out/results.csv") =~ /\n/g) > 2);
sleep 0.3;
my $stopped = $child && kill('STOP', $child);
sleep 1;
kill 'CONT', $child if $child;
my $status = 255;
for (1 .. 600) {
    if (waitpid($pid, WNOHANG) == $pid) { $status = $? >> 8; last }
    sleep 0.1;
}
if ($status == 255) { kill 'KILL', $pid; waitpid $pid, 0 }
my $err = Hopbench::slurp("$out.err");
ok($stopped, "the subscriber's process ($child) stopped for 1 s in the second trial");
ok(by_the_rule($status, $out), "size with a stalled trial: exit $status, by the rule") or diag $err;
like($err, qr/warning: size 1024 B repeat 2: hop \d \(\S+ -> \S+\) stalled: \d+ msgs\/s for [\d.]+ s of its [\d.]+ s window \(stall_ratio [\d.]+\); retried/,
     'the second trial stalled: named as run names it, and retried') or diag $err;
my $meta = decode_json(Hopbench::slurp("$out/metadata.json") || '{}');
ok((grep { /stalled: .*retried/ } @{ $meta->{warnings} // [] }),
   "metadata.json's warnings have the stall, as a run's do");
is($meta->{mode}, 'size', "metadata.json: mode size");

# ------------------------------------------------------------------------
# A pipeline's warnings: the regions' unequal shares (check says it),
# said by size as by run, on stderr and in metadata.json
my $cfg = 'tests/fixtures/regions-topics.cfg';
my (undef, undef, $checked) = hopbench('check', $cfg, '--set', 'sizes=64');
my ($warning) = $checked =~ /^(hopbench: warning: .*subscribe = 5%: each of eu-sub's .*)$/m;
ok($warning, 'check warns of the regions\' shares') or diag $checked;
my $run = tmp() . '/run';
my ($rc, undef, $ran) = hopbench('run', $cfg, '--sizes', '64', '--duration', '0.1',
                                 '--set', 'stall_ratio=0', '--quiet', '--output', $run);
my $sized = tmp() . '/sized';
my ($src, undef, $said) = hopbench('size', $cfg, '--sizes', '64', '--set', 'search_trial=0.1',
                                   '--set', 'size_goal_seconds=0.1', '--prove', '0',
                                   '--set', 'size_window=0.1', '--quiet',
                                   '--target', 'rate=1000', '--output', $sized);
ok(index($ran, $warning) >= 0, 'run says it') or diag $ran;
ok(index($said, $warning) >= 0, 'size says it, in the same words') or diag $said;
$meta = decode_json(Hopbench::slurp("$sized/metadata.json") || '{}');
my $line = $warning =~ s/^hopbench: warning: //r;
ok((grep { $_ eq $line } @{ $meta->{warnings} // [] }), "...and keeps it in metadata.json");

# ------------------------------------------------------------------------
# The file limit: a candidate of 40 SUB sockets needs about 190 files;
# under a soft limit of 100 (the hard one above it) size raises it, as
# run does, and measures
my $limited = tmp() . '/limited';
my $cmd = "ulimit -S -n 100 && exec ./hopbench size topologies/proxy.cfg --sizes 64 "
        . "--set search_trial=0.1 --set size_goal_seconds=0.2 --set sub.sockets=40 "
        . "--set size_window=0.1 --prove 0 --quiet --target rate=1000 --output $limited";
my $limited_err = `bash -c '$cmd' 2>&1 >/dev/null`;
my $limited_rc = $? >> 8;
ok(by_the_rule($limited_rc, $limited), "40 sockets under ulimit -S -n 100: exit $limited_rc, by the rule")
    or diag $limited_err;
my @rows = @{ csv("$limited/results.csv")->{rows} };
ok(@rows >= 2 && !grep({ $_->{received} > $_->{sent} } @rows),
   'its trials have rows, none receiving more than was sent');

done_testing();
