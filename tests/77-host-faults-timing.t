#!/usr/bin/perl
# Faults across hosts placed where they cost the most time, at the
# timeouts users run (5 s; 10 s too under HOPBENCH_LONG=1).  Network
# namespaces the test makes are the hosts, joined by a bridge on
# 169.254.80.0/24; every name carries this test's pid, and everything is
# removed at the end, also after a failure.
#
#     [ctl .10] --+              +-- [h1 .1] pub
#                 +-- bridge ----+-- [h2 .2] broker
#                                +-- [h3 .3] sub.1
#                                +-- [h4 .4] sub.2
#
# The cases, each mid-sweep (after the first size):
#
#   window-end H   H's link cut while the controller reads the hosts at a
#                  window's end: HOPBENCH_TEST_EDGE_PAUSE holds it there,
#                  between the counters and the CPU times, until the link
#                  is down.  It must end within timeout + 5 s naming H (its
#                  CPU time's failure ends the trial; it once waited a full
#                  timeout there, ignored it, and another in the drain).
#   controller     the controller's own link cut: every agent silent at
#                  once, so the error names no one host but says the
#                  controller lost its network.
#   frozen sub.1   sub.1's process stopped (SIGSTOP) at a window's end:
#                  the broker blocks sending to it and its counters do
#                  not come; one wording whichever wait sees it first
#                  (the engine's, its agent's, the controller's): "no
#                  COUNTS within 5.0 s", naming the broker, which is what
#                  stopped answering (sub.1 behind it is not named).
#
# Each case: exit 1 within timeout + 5 s, the sizes finished kept, no
# stage process left on any host within timeout + 5 s, and the next run
# served within timeout + 5 s of the failed one's end; a last run ends
# well.  Each case's times are printed as TAP notes ("# case ...").  By
# default only window-end h3 (the broker blocked on it), controller and
# frozen sub.1 at timeout 5 run (about 30 s); HOPBENCH_LONG=1 adds
# window-end on every host at 5 and at 10.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Netns;
use Cwd qw(getcwd);
use Time::HiRes qw(time sleep);
use Test::More;

chdir "$FindBin::Bin/..";
plan skip_all => 'hosts are network namespaces: root only' if $> != 0;
plan skip_all => 'needs iproute2 (ip)' if system('command -v ip >/dev/null') != 0;

my $root = getcwd();
my $work = tmp();
chmod 0755, $work;
$ENV{TMPDIR} = $work;
my @hosts = qw(h1 h2 h3 h4);
my %stage = (h1 => 'pub', h2 => 'broker', h3 => 'sub.1', h4 => 'sub.2');
my $net = Netns->new(id => 'ht' . ($$ % 1000000), subnet => '169.254.80', work => $work,
                     hosts => { c => 10, h1 => 1, h2 => 2, h3 => 3, h4 => 4 });
$SIG{INT} = $SIG{TERM} = sub { $net->cleanup; exit 1 };
$net->up or BAIL_OUT('cannot make the test\'s network namespaces');

is($net->keys("$root/hopbench", @hosts), '', 'keys for the controller and each host, and hosts.cfg');
write_file("$work/fanout.cfg", <<"EOF");
topology = fanout
    transport = tcp
publisher = pub
    host = h1
hop
proxy = broker
    host = h2
hop
subscriber = sub
    count = 2
    host = h3,h4
EOF

my %agent;
sub agent { return $agent{ $_[0] } = $net->agent("$root/hopbench", $_[0]) }
agent($_) or BAIL_OUT("the agent of $_ does not start") for @hosts;

my $pause = "$work/edge-pause";
my $runs = 0;
sub run_start {
    my ($timeout, @more) = @_;
    my $n = ++$runs;
    unlink $pause;
    local $ENV{HOPBENCH_TEST_EDGE_PAUSE} = $pause;
    my $pid = $net->spawn('c', "ctl$n", "$root/hopbench", 'run', "$work/fanout.cfg",
        '--hosts', "$work/hosts.cfg", '--cert', "$work/keys/ctl.cert_secret",
        '--set', "timeout=$timeout",
        '--sizes', '64,128,256,512,1024,2048,4096,8192,16384,32768',
        qw(--duration 0.3 --quiet --output), "$work/run$n", @more);
    return ($pid, $n);
}

sub rows { return @{ csv("$work/run$_[0]/results.csv")->{rows} } }

# The controller held at a window's end is let go (the pause file
# removed)
sub release { unlink $pause if -e $pause }

# A run that has finished its first size (3 rows), started again while
# an agent is still busy with the last run's end, until 'until'
sub run_going {
    my ($until, $timeout, @more) = @_;
    while (time < $until + 2 * $timeout) {
        my $start = time;
        my ($pid, $n) = run_start($timeout, @more);
        while (1) {
            return ($pid, $n, $start) if rows($n) >= 3;
            release();
            my $status = $net->reap($pid);
            if (defined $status) {
                diag "run $n ended before its first size: "
                    . Hopbench::slurp("$work/ctl$n.err") if time > $until;
                last;
            }
            sleep 0.01;
        }
        sleep 0.1;
    }
    return;
}

# Wait for the run to end (bounded), letting it past every window's end:
# its exit status (-1: still running)
sub run_wait { return $net->finish(@_, \&release) }

# The controller at the next window's end (held there), or false
sub at_window_end {
    my ($pid, $limit) = @_;
    my $until = time + $limit;
    while (time < $until) {
        return 1 if -e $pause;
        return 0 if defined $net->reap($pid);
        sleep 0.002;
    }
    return 0;
}

sub none_left { return $net->stages_left($_[0], @hosts) }

# The one stage process on $host: its pid
sub stage_pid {
    my ($host) = @_;
    my @found = $net->stage_processes($host);
    return @found == 1 && $found[0] =~ /: (\d+)$/ ? $1 : undef;
}

# One case: a run going, the fault, then the checks.  $fault->() places
# it and returns what must be said (a regex), the hosts it may name, and
# what to undo after
my $ended = time;
sub case {
    my ($case, $timeout, $fault, @more) = @_;
    my ($pid, $n, $started) = run_going($ended + $timeout + 5, $timeout, @more);
    ok(defined $pid, "$case: a run is served") or BAIL_OUT('no run is served any more');
    ok($started - $ended < $timeout + 5,
       sprintf("$case: served when started %.2f s after the last run ended",
               $started - $ended)) if $n > 1;
    my ($at, $want, $named, $undo) = $fault->($pid);
    my $rc = run_wait($pid, 3 * $timeout + 15);
    $ended = time;
    my $took = $ended - $at;
    my $err = Hopbench::slurp("$work/ctl$n.err");
    my @left = none_left($at + $timeout + 5);
    my $cleared = time - $at;
    note(sprintf("case %-16s timeout %2g: the run ended %.2f s after the fault, "
                 . "stages gone %.2f s after", $case, $timeout, $took, $cleared));
    note("case $case: $_") for split /\n/, $err;
    is($rc, 1, "$case: exit 1") or diag $err;
    ok($took < $timeout + 5, sprintf("$case: ended within timeout + 5 s (%.2f s)", $took));
    like($err, $want, "$case: says what happened, where") or diag $err;
    my @said = sort keys %{ { map { $_ => 1 } $err =~ /\b(h[1-4])\b/g } };
    is("@said", $named, "$case: names " . ($named || 'no host') . ' and no other')
        or diag $err;
    unlike($err, qr/STATISTICS|counters: /, "$case: in the one wording of counters");
    my @rows = rows($n);
    ok(@rows >= 3 && !grep({ $_->{msgs_per_sec} !~ /^[\d.]+$/ } @rows),
       "$case: the finished sizes are kept (" . @rows . ' rows)');
    is("@left", '', "$case: no stage process left on any host within timeout + 5 s");
    $undo->() if $undo;
}

# The fault placed the moment the controller is held at a window's end
# (after the first size): $place->() puts it there and returns what
# must be said, the hosts named and what to undo; then the controller
# goes on to read the hosts
sub window_end {
    my ($timeout, $place) = @_;
    return sub {
        my ($pid) = @_;
        at_window_end($pid, 3 * $timeout + 15) or return (time, qr/^(?!)/, '');
        my $at = time;
        my @said = $place->();
        unlink $pause;
        return ($at, @said);
    };
}

# Its link cut: that host and its stage named
sub cut {
    my ($host, $timeout) = @_;
    return sub {
        $net->link($host, 'down');
        return (qr/^hopbench: stage \Q$stage{$host}\E: host \Q$host\E: no word from its agent for \Q$timeout\E s \(its host or link is down, or it hangs\)$/m,
                $host, sub { $net->link($host, 'up') });
    };
}

my @window_end = long() ? map { my $t = $_; map { [$_, $t] } @hosts } 5, 10 : (['h3', 5]);
for my $c (@window_end) {
    my ($host, $timeout) = @$c;
    case("window-end $host", $timeout, window_end($timeout, cut($host, $timeout)));
}

case('controller', 5, sub {
    my $at = time;
    $net->link('c', 'down');
    return ($at, qr/^hopbench: no agent answered for 5 s \(h1, h2, h3, h4\): the controller has lost its network, or cannot reach any host$/m,
            'h1 h2 h3 h4', sub { $net->link('c', 'up') });
});

# sub.1 stopped at a window's end: the broker, sending to it, blocks
# (small queues: it does so within a few messages), and the drain's
# COUNTS of it (the engine answers between messages) do not come,
# whichever wait ends first: the engine's, or the controller's
case('frozen sub.1', 5, window_end(5, sub {
    my $sub = stage_pid('h3');
    kill 'STOP', $sub if $sub;
    return (qr/^hopbench: stage broker: host h2: no COUNTS within 5\.0 s$/m, 'h2');
}), qw(--set hwm=10 --set tcp_buffer=4096));

# h3's agent stopped (SIGSTOP) mid-sweep for three timeouts: the run ends
# naming h3; sub.1's process on h3 ends within timeout + 5 s though its
# agent is still stopped (it sees its parent stopped past the timeout);
# and once the agent runs again (SIGCONT) it ends the run it was given up
# on before it reads what waited in its queues: the next controller is
# served at once, not a timeout later
my $cont;
case('frozen agent h3', 5, sub {
    my $at = time;
    kill 'STOP', $agent{h3};
    return ($at, qr/^hopbench: stage sub\.1: host h3: no word from its agent for 5 s/m, 'h3',
            sub { sleep 0.1 while time < $at + 15; kill 'CONT', $agent{h3}; $cont = time });
});
{
    my ($pid, $n, $started) = run_going($cont + 2, 5);
    ok(defined $pid && $started - $cont < 2,
       sprintf('frozen agent h3: once it runs again, the next run is served %.2f s later',
               ($started // 99) - $cont));
    is($pid ? run_wait($pid, 60) : -1, 0, 'frozen agent h3: and that run ends well')
        or diag Hopbench::slurp("$work/ctl$n.err");
    like(join('', map { Hopbench::slurp($_) } glob("$work/agent-h3-*.err")),
         qr/this agent did not run for \d+\.\d s \(stopped\?\), longer than the run's timeout \(5 s\)/,
         'frozen agent h3: its log says why it ended the run');
    $ended = time;
}

# After every case, a run is served and ends well
my ($pid, $n, $started) = run_going($ended + 10, 5);
ok(defined $pid && $started - $ended < 10, 'after every case, a run is served')
    and (is(run_wait($pid, 60), 0, 'and ends well')
        or diag Hopbench::slurp("$work/ctl$n.err"))
    or diag map { "$_: " . Hopbench::slurp($_) } glob("$work/agent-*.err");
is(join(' ', none_left(time + 10)), '', 'no stage process left on any host');
for my $host (@hosts) {
    is($net->stop($agent{$host}), 0, "the agent of $host ends cleanly on SIGTERM");
}
done_testing();
