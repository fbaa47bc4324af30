#!/usr/bin/perl
# --profile syscalls: where each stage's time in the kernel goes.  A run
# of proxy.cfg over tcp has rows for pub, broker and sub and their I/O
# threads, with the calls libzmq's tcp path makes and totals that add up;
# over inproc no stage sends or receives on a socket, and the table says
# so; ipc sends too; plot draws a stage's calls, compare matches them;
# a search traces one twin of its confirmation; and where tracing is
# impossible (here: a user who is not root) the run is exit 2 before it
# starts, saying why.  Counts only, never a timing.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use List::Util qw(sum0);
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();
my @quick = qw(--duration 0.3 --set warmup=0.1 --quiet);

# Checks that need no tracing: what the key takes
my ($rc, $stdout, $err) = hopbench(qw(check topologies/proxy.cfg --profile strace));
is($rc, 2, 'an unknown profile: exit 2');
like($err, qr/unknown profile 'strace' \(none, syscalls\)/, 'an unknown profile: the choices');

plan skip_all => 'the raw_syscalls tracepoints need root' if $> != 0;

# Not root: exit 2 before the run, naming what is missing and how to get it
SKIP: {
    skip 'no setpriv (util-linux)', 3 if system('command -v setpriv >/dev/null') != 0;
    my $out = tmp() . '/never';
    my $said = `setpriv --reuid=65534 --regid=65534 --clear-groups timeout 60 ./hopbench run topologies/proxy.cfg --profile syscalls --sizes 64 --duration 0.2 --output $out 2>&1 >/dev/null`;
    is($? >> 8, 2, 'not root: exit 2');
    like($said,
         qr/^hopbench: profile = syscalls: this host cannot trace system calls: .*permission denied.*\(.*root/mi,
         'not root: what is missing, and how to get it');
    ok(!-e $out, 'not root: nothing run, no results directory');
}

my %run;
for my $transport (qw(tcp ipc inproc)) {
    my $dir = tmp();
    ($rc, $stdout, $err) = hopbench(qw(run topologies/proxy.cfg --profile syscalls),
        '--sizes', '64,16384', '--set', "transport=$transport", '--output', $dir, @quick);
    is($rc, 0, "$transport: exit 0") or diag $err;
    $run{$transport} = { dir => $dir, table => $stdout, csv => csv("$dir/syscalls.csv") };
}

# --- tcp ---
my $tcp = $run{tcp}{csv};
is(join(',', @{ $tcp->{columns} }),
   'topology,size,repeat,stage,thread,syscall,calls,total_ns,calls_per_msg,ns_per_msg,messages,'
   . 'seconds,cpu_ns,utime_ns,stime_ns,kernel_share,lost,host,pattern,mode',
   'syscalls.csv: its columns');
my @rows = @{ $tcp->{rows} };
sub rows_of {
    my ($rows, %want) = @_;
    return grep { my $r = $_; !grep { $r->{$_} ne $want{$_} } keys %want } @$rows;
}
sub calls_of {
    my ($rows, %want) = @_;
    return sum0 map { $_->{calls} } rows_of($rows, %want);
}
for my $size (64, 16384) {
    for my $stage (qw(pub broker sub)) {
        my $where = "tcp $size B $stage";
        my ($total) = rows_of(\@rows, size => $size, stage => $stage, thread => 'all', syscall => 'all');
        ok($total && $total->{calls} > 0 && $total->{messages} > 0,
           "$where: a total, with calls and messages") or next;
        ok($total->{cpu_ns} > 0 && $total->{kernel_share} ne '', "$where: its CPU time and the kernel's share");
        for my $thread ('main', 'ZMQbg/IO/0') {
            my ($t) = rows_of(\@rows, size => $size, stage => $stage, thread => $thread, syscall => 'all');
            ok($t, "$where: thread $thread has its row") or next;
            my $calls = sum0 map { $_->{calls} }
                grep { $_->{syscall} ne 'all' } rows_of(\@rows, size => $size, stage => $stage, thread => $thread);
            is($t->{calls}, $calls, "$where $thread: its total is the sum of its calls");
        }
        my $threads = sum0 map { $_->{calls} }
            grep { $_->{thread} ne 'all' } rows_of(\@rows, size => $size, stage => $stage, syscall => 'all');
        is($total->{calls}, $threads, "$where: the stage's total is its threads'");
        my $per = $total->{calls} / $total->{messages};
        ok(abs($total->{calls_per_msg} - $per) <= 1e-6 + 1e-6 * $per, "$where: calls_per_msg = calls / messages");
        ok(calls_of(\@rows, size => $size, stage => $stage, thread => 'ZMQbg/IO/0', syscall => 'epoll_wait') > 0,
           "$where: its I/O thread waits in epoll_wait");
        ok(calls_of(\@rows, size => $size, stage => $stage, thread => 'main', syscall => 'poll') > 0,
           "$where: its own thread polls (sockets and mailbox)");
    }
    ok(calls_of(\@rows, size => $size, stage => 'pub', thread => 'ZMQbg/IO/0', syscall => 'sendto') > 0,
       "tcp $size B: the publisher's I/O thread sends (sendto)");
    ok(calls_of(\@rows, size => $size, stage => 'broker', thread => 'ZMQbg/IO/0', syscall => 'recvfrom') > 0
       && calls_of(\@rows, size => $size, stage => 'broker', thread => 'ZMQbg/IO/0', syscall => 'sendto') > 0,
       "tcp $size B: the broker's I/O thread receives and sends");
    ok(calls_of(\@rows, size => $size, stage => 'sub', thread => 'ZMQbg/IO/0', syscall => 'recvfrom') > 0,
       "tcp $size B: the subscriber's I/O thread receives (recvfrom)");
}
like($run{tcp}{table}, qr/^ +system calls in the window \(profile = syscalls\), traced in a twin of each repeat: it ran at [\d.]+ x the untraced rate \([\d,]+ against [\d,]+ msgs\/s, median of 1 pair\), the profile's cost$/m,
     'table: the block says what the profile cost');
like($run{tcp}{table}, qr/^ +broker +all +all +[\d,]+ +[\d.]+ +[\d,]+$/m, 'table: the broker\'s totals');
like($run{tcp}{table}, qr/^ +ZMQbg\/IO\/0 +(sendto|recvfrom|epoll_wait) +[\d,]+/m, 'table: an I/O thread\'s calls');
unlike($run{tcp}{table}, qr/no socket send or receive/, 'table: over tcp every stage sends or receives');
($rc, $stdout, $err) = hopbench(qw(run topologies/proxy.cfg --profile syscalls --sizes 64 --format json),
    '--output', tmp() . '/json', @quick);
is($rc, 0, 'json: exit 0') or diag $err;
my $doc = eval { JSON::PP::decode_json($stdout) } // {};
ok(ref $doc->{syscalls} eq 'ARRAY' && (grep { $_->{stage} eq 'broker' && $_->{syscall} eq 'all'
                                               && $_->{calls} > 0 } @{ $doc->{syscalls} }),
   'json: the syscalls list, with syscalls.csv\'s fields');
my @results = grep { $_->{repeat} =~ /^\d+$/ } @{ csv("$run{tcp}{dir}/results.csv")->{rows} };
is(scalar @results, 4, 'results.csv: the untraced trials, 2 sizes x 2 hops');

# --- ipc: the same engine, a Unix socket ---
@rows = @{ $run{ipc}{csv}{rows} };
ok(calls_of(\@rows, stage => 'pub', thread => 'ZMQbg/IO/0', syscall => 'sendto') > 0
   && calls_of(\@rows, stage => 'sub', thread => 'ZMQbg/IO/0', syscall => 'recvfrom') > 0,
   'ipc: the I/O threads send and receive');

# --- inproc: no socket call at all, and the table says so ---
@rows = @{ $run{inproc}{csv}{rows} };
ok(@rows > 0, 'inproc: syscall rows (the stages still wait and wake)');
is(scalar(grep { $_->{syscall} =~ /^(sendto|recvfrom|sendmsg|recvmsg)$/ } @rows), 0,
   'inproc: no stage sends or receives on a socket');
for my $stage (qw(pub broker sub)) {
    like($run{inproc}{table},
         qr/^ +\Q$stage\E +all +all .*\n(?: +kernel: .*\n)? +no socket send or receive: its messages do not go through the kernel/m,
         "inproc table: $stage keeps its messages out of the kernel");
}

# --- compare: syscall rows matched by stage, kind of thread and syscall ---
($rc, $stdout, $err) = hopbench('compare', $run{tcp}{dir}, $run{ipc}{dir}, '--format', 'csv');
is($rc, 0, 'compare tcp ipc: exit 0') or diag $err;
my $cmp = "$ENV{TMPDIR}/compare.csv";
write_file($cmp, $stdout);
my @c = map { my $r = $_; $r->{$_} //= '' for qw(syscall only from to metric); $r } @{ csv($cmp)->{rows} };
my @matched = grep { $_->{syscall} eq 'sendto' && $_->{from} eq 'pub' && $_->{to} eq 'ZMQbg/IO'
                     && $_->{metric} eq 'calls/msg' && $_->{only} eq '' } @c;
is(scalar @matched, 2, 'compare: the publisher\'s sendto per message matched at both sizes');
ok((grep { $_->{syscall} eq 'all' && $_->{to} eq 'all' && $_->{from} eq 'broker' && $_->{metric} eq 'cpu_ns/msg' } @c),
   'compare: the broker\'s CPU per message, from its total');
($rc, $stdout, $err) = hopbench('compare', $run{tcp}{dir}, $run{ipc}{dir});
like($stdout, qr/system calls \(syscalls\.csv\): lower is better/, 'compare table: a block of system calls');
like($stdout, qr/^ +64  pub ZMQbg\/IO sendto +calls\/msg /m, 'compare table: a call named by stage, thread kind and syscall');

# --- plot: a stage's ns per message by syscall, per size ---
SKIP: {
    skip 'no gnuplot on PATH', 3 unless grep { -x "$_/gnuplot" } split /:/, $ENV{PATH};
    ($rc, $stdout, $err) = hopbench('plot', $run{tcp}{dir});
    is($rc, 0, 'plot: exit 0') or diag $err;
    ok(-s "$run{tcp}{dir}/proxy-syscalls-broker.png", 'plot: the broker\'s system calls chart');
    my @data = grep { !/^#/ } split /\n/, Hopbench::slurp("$run{tcp}{dir}/plot-syscalls-proxy-broker.dat");
    is(join(',', map { (split ' ')[0] } @data), '64,16384', 'plot data: a bar per size');
}
# A search traces one twin per search, after it: at the confirmation's
# rate and for its length (search_confirm 0.6 s against 0.1 s steps), on
# the pipeline the search kept; syscalls.csv's repeat is the search's
# (a search that confirmed no rate, every trial failed on a busy machine,
# traces nothing: the run is made again, up to three times, until both
# searches confirmed one)
{
    my ($out, $rc, $table, $err, %confirmed);
    for my $attempt (1 .. 3) {
        $out = tmp() . '/search';
        ($rc, $table, $err) = hopbench(qw(run topologies/proxy.cfg --sizes 1024 --set mode=search
            --set search_trial=0.1 --set search_confirm=0.6 --set search_trials=4 --set stall_ratio=0
            --repeat 2 --profile syscalls --output), $out);
        %confirmed = map { ($_->{repeat} => 1) } grep { $_->{loss_ratio} ne '' }
            @{ csv("$out/results.csv")->{rows} };
        last if $rc != 0 || keys %confirmed == 2;
        note("attempt $attempt: searches that confirmed a rate: " . join(',', sort keys %confirmed));
    }
    is($rc, 0, 'search with --profile syscalls: exit 0') or diag $err;
    my @rows = @{ csv("$out/syscalls.csv")->{rows} };
    for my $search (1, 2) {
        for my $stage (qw(pub broker sub)) {
            my ($total) = rows_of(\@rows, repeat => $search, stage => $stage, thread => 'all', syscall => 'all');
            ok($total && $total->{calls} > 0 && $total->{messages} > 0,
               "search $search: ${stage}'s traced total, with calls and messages") or next;
            ok($total->{seconds} >= 0.35, "search $search: $stage traced as long as the confirmation "
               . "($total->{seconds} s), not a step");
        }
        ok(!$confirmed{$search} || scalar(rows_of(\@rows, repeat => $search, stage => 'pub', syscall => 'all', thread => 'all')) == 1,
           "search $search: one traced twin");
    }
    is(join(',', sort { $a <=> $b } keys %{{ map { ($_->{repeat} => 1) } @rows }}),
       join(',', sort { $a <=> $b } keys %confirmed), 'syscalls.csv: a twin for each search that confirmed a rate');
    like($table, qr/^ +system calls in the window \(profile = syscalls\), traced in a twin of the search's confirmation, at its rate: it ran at [\d.]+ x the untraced rate \([\d,]+ against [\d,]+ msgs\/s, median of 1 pair\)/m,
         'table: the twin is the confirmation\'s');
    my @traced = grep { $_->{pipeline} ne '' } @{ csv("$out/search.csv")->{rows} };
    is(scalar(grep { $_->{phase} !~ /^(bound|step|confirm)$/ } @traced), 0, 'search.csv: the search\'s trials only');
}

# Stages in their own process: each stage's rows are its own thread and
# its libzmq threads; the process's czmq context (the control channel to
# the controller) is not the stage's work
{
    my $out = tmp() . '/procs';
    my ($rc, undef, $err) = hopbench(qw(run topologies/proxy-procs.cfg --sizes 1024 --duration 0.3
        --profile syscalls --quiet --output), $out);
    is($rc, 0, 'proxy-procs with --profile syscalls: exit 0') or diag $err;
    my $t = csv("$out/syscalls.csv");
    my %threads = map { ("$_->{stage} $_->{thread}" => 1) } @{ $t->{rows} };
    ok($threads{'proxy main'} && $threads{'proxy ZMQbg/IO/0'}, "the broker's own thread and its I/O thread");
    is(join(' ', sort grep { m{ process/} } keys %threads), '', 'no thread of the control channel among any stage\'s rows');
}

done_testing();
