#!/usr/bin/perl
# Strays on a kept pipeline: messages an earlier trial left in a queue
# belong to that trial, never to the next one's counts.  The subscriber
# (a process of its own) is frozen with SIGSTOP for 0.3 s every 0.6 s
# while a search runs with search_reuse: a freeze that spans a drain lets
# the drain go quiet with messages still queued at the subscriber, which
# takes them once the next trial has started (an earlier epoch: late).
# That trial is void and runs again on a fresh pipeline (search.csv's
# pipeline column: fallback:late), and no row anywhere counts more
# received than sent: a count that cannot be true would end the run with
# exit 1.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Time::HiRes qw(sleep);
use Test::More;

chdir "$FindBin::Bin/..";
my $out = tmp() . '/run';
my $err = tmp() . '/err';
my $pid = fork() // die "fork: $!";
if ($pid == 0) {
    open STDOUT, '>', '/dev/null' or die;
    open STDERR, '>', $err or die;
    exec './hopbench', 'run', 'topologies/proxy-procs.cfg', '--sizes', '1024',
        qw(--set mode=search --set search_reuse=true --set timeout=5 --set stall_ratio=0
        --quiet --output), $out;
    die "exec: $!";
}

# The freezer: the subscriber stopped 0.3 s in every 0.6 s, never left
# stopped; it ends with the run
my ($freezes, $status) = (0, undef);
for (1 .. 200) {    # 120 s at most
    if (waitpid($pid, 1) > 0) {
        $status = $?;
        last;
    }
    my ($sub) = grep { (Hopbench::slurp("/proc/$_/comm") // '') =~ /^hopbench:sub$/ }
                grep { /^\d+$/ } split /\n/, `pgrep -P $pid`;
    if ($sub && kill 'STOP', $sub) {
        sleep 0.3;
        kill 'CONT', $sub;
        $freezes++;
    }
    sleep 0.3;
}
unless (defined $status) {
    kill 'KILL', $pid;
    waitpid($pid, 0);
    $status = $?;
}
my $rc = $status >> 8;
is($rc, 0, "the search ended well under $freezes freezes of its subscriber")
    or diag Hopbench::slurp($err);

my @search = @{ Hopbench::csv("$out/search.csv")->{rows} };
my @results = @{ Hopbench::csv("$out/results.csv")->{rows} };
# (results.csv holds the confirmed rows: a search whose every trial a busy
# machine and the freezer failed found no rate, and has none)
my $found = grep { $_->{found} > 0 } @{ Hopbench::csv("$out/search_summary.csv")->{rows} };
ok(@search && (@results || !$found), 'search.csv written, and results.csv with the rate found'
   . ($found ? '' : ' (none found)'));
my @strays = grep { $_->{pipeline} eq 'fallback:late' } @search;
SKIP: {
    skip "no freeze spanned a drain in this run ($freezes freezes): no stray to count", 1 unless @strays;
    my %trials = map { $_->{trial} => 1 } @strays;
    pass('a trial took an earlier trial\'s messages, was void, and ran again on a fresh pipeline (trials '
         . join(',', sort { $a <=> $b } keys %trials) . ')');
}
my @bad = grep { $_->{lost} < 0 || $_->{loss_ratio} < 0 || $_->{loss_ratio} > 1 } @search;
is(scalar @bad, 0, 'search.csv: no trial\'s hop lost less than nothing or more than all ('
   . scalar(@search) . ' rows)');
@bad = grep { $_->{received} > $_->{expected} || $_->{lost} != $_->{expected} - $_->{received} } @results;
is(scalar @bad, 0, 'results.csv: received within expected, lost = expected - received ('
   . scalar(@results) . ' rows)');
done_testing();
