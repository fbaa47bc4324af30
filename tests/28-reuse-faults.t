#!/usr/bin/perl
# A search on a pipeline kept up between trials (search_reuse): a stage
# killed while the session is up ends the run as a fresh pipeline's
# does: exit 1, the stage named, the finished trials kept, no stage
# process left, well within the timeout.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Time::HiRes qw(time sleep);
use Test::More;

chdir "$FindBin::Bin/..";
my $out = tmp() . '/run';
my $err = tmp() . '/err';
my $pid = fork() // die "fork: $!";
if ($pid == 0) {
    open STDOUT, '>', '/dev/null' or die;
    open STDERR, '>', $err or die;
    exec 'timeout', '-k', '5', '120', './hopbench', 'run', 'topologies/proxy-procs.cfg',
        '--sizes', '1024,4096', qw(--set mode=search --set search_reuse=true --set timeout=5
        --quiet --output), $out;
    die "exec: $!";
}
# hopbench's own child: timeout's
my $hopbench;
for (1 .. 100) {
    ($hopbench) = grep { /^\d+$/ } split /\n/, `pgrep -P $pid`;
    last if $hopbench;
    sleep 0.05;
}
ok($hopbench, 'the run started');
# wait until two trials ran on the kept pipeline
my $reused = 0;
for (1 .. 600) {
    $reused = () = (-e "$out/search.csv" ? Hopbench::slurp("$out/search.csv") : '') =~ /,reused$/mg;
    last if $reused >= 2;
    sleep 0.05;
}
SKIP: {
    if ($reused < 2) {
        kill 'TERM', $hopbench;
        waitpid($pid, 0);
        skip "no two trials on a kept pipeline in 30 s (this machine fell back to fresh ones)", 7;
    }
    pass('trials on the kept pipeline');
    my @stages = grep { /^\d+$/ } split /\n/, `pgrep -P $hopbench`;
    my ($broker) = grep { my $c = `cat /proc/$_/comm 2>/dev/null`; $c =~ /^hopbench:proxy$/ } @stages;
    ok($broker, 'the broker in its own process');
    kill 'KILL', $broker if $broker;
    my $killed = time;
    waitpid($pid, 0);
    my $rc = $? >> 8;
    my $took = time - $killed;
    is($rc, 1, 'a broker killed on the kept pipeline: exit 1');
    cmp_ok($took, '<', 10, "the run ended within timeout + 5 s (took ${\ sprintf '%.1f', $took} s)");
    like(Hopbench::slurp($err), qr/stage proxy: its process \(pid \d+\) ended: killed by signal 9/, 'the stage named');
    ok(-s "$out/search.csv" && -s "$out/results.csv", 'what finished is kept');
    is(scalar(grep { kill 0, $_ } @stages), 0, 'no stage process left (' . scalar(@stages) . ' were running)');
}
done_testing();
