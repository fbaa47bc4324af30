#!/usr/bin/perl
# Stages in their own processes: named in ps, measured like threads, and a
# killed one ends the run cleanly.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Time::HiRes qw(time sleep);
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();

# children of pid, by their process name
sub children {
    my ($pid) = @_;
    my %names;
    for (`ps -eo ppid=,comm=`) {
        my ($ppid, $comm) = /^\s*(\d+)\s+(\S+)/ or next;
        $names{$comm}++ if $ppid == $pid;
    }
    return \%names;
}

sub start {
    my ($out, @args) = @_;
    my $pid = fork();
    if ($pid == 0) {
        open STDOUT, '>', '/dev/null';
        open STDERR, '>', "$out.err";
        exec './hopbench', 'run', @args, '--quiet', '--output', $out;
    }
    return $pid;
}

# every stage a process of its own, visible by name while the run works
my $out = tmp();
my $pid = start($out, 'topologies/proxy-procs.cfg', '--sizes', '64,1024', '--duration', '1');
my $names = {};
for (1 .. 100) { # up to 10 s: a sanitized build beside another test starts slowly
    sleep 0.1;
    my $now = children($pid);
    $names->{$_} = 1 for keys %$now;
    last if 3 == grep { $names->{"hopbench:$_"} } qw(pub proxy sub);
}
waitpid($pid, 0);
is($? >> 8, 0, 'proxy-procs: exit 0') or diag Hopbench::slurp("$out.err");
ok($names->{"hopbench:$_"}, "ps shows hopbench:$_") for qw(pub proxy sub);
my @rows = @{ csv("$out/results.csv")->{rows} };
is(scalar @rows, 4, 'proxy-procs: 2 sizes x 2 hops');
for (@rows) {
    ok($_->{msgs_per_sec} > 0, "proxy-procs size $_->{size} hop $_->{hop}: traffic");
    ok($_->{from_cpu_ns_per_msg} > 0 && $_->{to_cpu_ns_per_msg} > 0,
       "proxy-procs size $_->{size} hop $_->{hop}: CPU per message read from the other processes");
}
is($rows[1]{seq_lost}, $rows[0]{lost} + $rows[1]{lost}, 'proxy-procs: loss proven across processes');
my @threads = @{ csv("$out/threads.csv")->{rows} };
for my $stage (qw(pub proxy sub)) {
    ok((grep { $_->{stage} eq $stage && $_->{thread} eq 'main' } @threads),
       "threads.csv: ${stage}'s thread, read from its process");
    ok((grep { $_->{stage} eq $stage && $_->{thread} =~ m{^ZMQbg/IO} } @threads),
       "threads.csv: ${stage}'s libzmq I/O thread");
}
my $tmpdir = $ENV{TMPDIR} // '/tmp';    # where the run's ipc directory is
my @after = grep { /hopbench stage \Q$tmpdir\E/ } `ps -eo args=`;
is(scalar @after, 0, 'no stage process outlives the run');

# inproc cannot cross processes
my ($rc, undef, $err) = hopbench(qw(check topologies/chain3.cfg --set p3.process=own));
is($rc, 2, 'own process on an inproc hop: exit 2');
like($err, qr/--set p3\.process=own: stage 'p3' runs in its own process: hop 3 cannot be inproc/,
     'own process on an inproc hop: says which hop');

# kill -9 the proxy's process during a sweep: out within 5 s, exit 1
$out = tmp();
$pid = start($out, qw(topologies/proxy-procs.cfg --sizes 8..131072 --duration 0.5));
# killed once a size has finished (its rows are in results.csv), however
# slowly a sanitized build beside another test gets there: up to 60 s
for (1 .. 600) {
    my $csv = Hopbench::slurp("$out/results.csv") // '';
    last if ($csv =~ tr/\n//) >= 3;    # the header and a size's two hops
    sleep 0.1;
}
my ($proxy) = map { /^\s*(\d+)\s+(\d+)\s+hopbench:proxy$/ && $2 == $pid ? $1 : () }
    `ps -eo pid=,ppid=,comm=`;
ok($proxy, 'the proxy process is there to kill');
my $killed = time;
kill 'KILL', $proxy if $proxy;
waitpid($pid, 0);
my $took = time - $killed;
is($? >> 8, 1, 'killed proxy: exit 1');
ok($took < 5, 'killed proxy: the run ended within 5 s') or diag "took $took s";
like(Hopbench::slurp("$out.err"), qr/stage proxy: its process \(pid \d+\) ended: killed by signal 9/,
     'killed proxy: the error names the proxy');
@rows = @{ csv("$out/results.csv")->{rows} };
ok(@rows >= 2, 'killed proxy: the finished sizes are in results.csv');
ok(!grep({ $_->{msgs_per_sec} !~ /^[\d.]+$/ } @rows), 'killed proxy: every row complete');
# a stage process names the run's private directory on its command line
my @left = grep { /hopbench stage \Q$ENV{TMPDIR}\E/ } `ps -eo args=`;
is(scalar @left, 0, 'killed proxy: no stage process left') or diag @left;
my @files = glob "$ENV{TMPDIR}/hopbench.*";
is("@files", '', 'killed proxy: the ipc directory is gone');
done_testing();
