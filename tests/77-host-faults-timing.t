#!/usr/bin/perl
# Faults across hosts placed where they cost the most time: in each
# question the controller asks an agent, the moment it asks it; and the
# agents' handover from one controller to the next (two racing for the
# same hosts, one killed).  Network namespaces the test makes are the
# hosts, joined by a bridge on 169.254.80.0/24; every name carries this
# test's pid, and everything is removed at the end, also after a
# failure.  Three lanes of four hosts share the network and run their
# cases side by side (most of a case is waiting for a timeout), paced
# (rate = 2000: what is measured is the control channel, not the data's
# speed):
#
#     [c .10] --+            +-- [h1 .1] pub     [g1 .11] pub     [f1 .21] pub
#     [d .20] --+- bridge ---+-- [h2 .2] broker  [g2 .12] broker  [f2 .22] broker
#     [e .30] --+            +-- [h3 .3] sub.1   [g3 .13] sub.1   [f3 .23] sub.1
#                            +-- [h4 .4] sub.2   [g4 .14] sub.2   [f4 .24] sub.2
#     lane a: controller in c, h1..h4; lane b: in d, g1..g4; lane e: in e, f1..f4
#
# Question cases (timeout 2; HOPBENCH_LONG=1: 5 and 10, two tries each):
# HOPBENCH_TEST_HOLD=WORD@HOST:FILE holds the controller just before it
# asks WORD of HOST's agent while FILE exists; the test arms it (after
# the first size, for a question asked again later), cuts HOST's link
# once the controller is held there, and lets it go.  Every question
# with an answer: HELLO, CLOCK (claiming the hosts: nothing measured
# yet), SPEC, START (a second combination's), PORTS, SETUP, HANDSHAKE,
# RUN, COUNTS, SHARED, THREADS, CPU, WAITS, TRACE, TRACED (--profile
# syscalls), TEARDOWN, END and BYE.  Each must end with exit 1 within
# timeout + 5 s, saying the host's loss in the one wording, naming that
# host and no other (no second error after it: an error dropped on the
# way once let the trial wait for the broker, blocked on the lost host,
# a whole timeout more), keep the sizes finished, leave no stage process
# on any host within timeout + 5 s, and the next run must be served
# within timeout + 5 s of the failed one's end.  Each case's times are
# printed as TAP notes ("# case ...").
#
# Other cases: the controller's own link cut (every agent silent: the
# error names no one host); sub.1's process stopped (SIGSTOP), which
# blocks the broker: "stage broker: host h2: no COUNTS within 2.0 s";
# h3's agent stopped for three timeouts (its stage ends while it is
# stopped; once it runs again, the next run is served at once); two
# controllers started at once for the same four hosts, one naming them
# h1..h4 and the other h4..h1: exactly one is served, the other refused
# "busy" naming the host it met first (5 races; HOPBENCH_LONG=1: 20);
# and a controller killed (SIGKILL) mid-run: its agents see its
# connection close, and the next run started once it is gone is served,
# within 1.5 s of its end (1 try; HOPBENCH_LONG=1: 10).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Netns;
use Cwd qw(getcwd);
use POSIX ();
use Time::HiRes qw(time sleep);
use Test::More;

chdir "$FindBin::Bin/..";
plan skip_all => 'hosts are network namespaces: root only' if $> != 0;
plan skip_all => 'needs iproute2 (ip)' if system('command -v ip >/dev/null') != 0;

my $root = getcwd();
my $work = tmp();
chmod 0755, $work;
$ENV{TMPDIR} = $work;
my %lane = (a => { ctl => 'c', hosts => [qw(h1 h2 h3 h4)] },
            b => { ctl => 'd', hosts => [qw(g1 g2 g3 g4)] },
            e => { ctl => 'e', hosts => [qw(f1 f2 f3 f4)] });
my @stages = qw(pub broker sub.1 sub.2); #  on a lane's hosts, in order
my @all = map { @{ $lane{$_}{hosts} } } sort keys %lane;
my $net = Netns->new(id => 'ht' . ($$ % 1000000), subnet => '169.254.80', work => $work,
                     hosts => { c => 10, d => 20, e => 30, h1 => 1, h2 => 2, h3 => 3, h4 => 4,
                                g1 => 11, g2 => 12, g3 => 13, g4 => 14,
                                f1 => 21, f2 => 22, f3 => 23, f4 => 24 });
$SIG{INT} = $SIG{TERM} = sub { $net->cleanup; exit 1 };
$net->up or BAIL_OUT('cannot make the test\'s network namespaces');

is($net->keys("$root/hopbench", @all), '', 'keys for the controller and each host, and hosts.cfg');
# A lane's fan-out, and the same hosts named the other way round
for my $l (sort keys %lane) {
    my @h = @{ $lane{$l}{hosts} };
    for my $shape ([ 'fanout', @h ], [ 'reverse', reverse @h ]) {
        my ($name, $pub, $broker, $s1, $s2) = @$shape;
        write_file("$work/$name-$l.cfg", <<"EOF");
topology = $name
    transport = tcp
publisher = pub
    host = $pub
hop
proxy = broker
    host = $broker
hop
subscriber = sub
    count = 2
    host = $s1,$s2
EOF
    }
}

my %agent;
sub agent { return $agent{ $_[0] } = $net->agent("$root/hopbench", $_[0]) }
agent($_) or BAIL_OUT("the agent of $_ does not start") for @all;

# ------------------------------------------------------------------------
# What a lane's cases share (each lane runs in a process of its own, and
# says what it found as lines for the parent to report)

my (@said, $lane_name, $runs, $early);
sub check { my ($ok, $name, $diag) = @_; push @said, [ $ok ? 1 : 0, $name, $ok ? '' : $diag // '' ]; return $ok }
sub notice { push @said, [ -1, $_[0], '' ] }

# A run in the lane's controller namespace, in the background: its pid
# and number; hold: WORD@HOST for HOPBENCH_TEST_HOLD, with FILE its own;
# flat: not paced
sub run_start {
    my (%o) = @_;
    my $n = ++$runs;
    my $l = $lane{$lane_name};
    local $ENV{HOPBENCH_TEST_HOLD} = $o{hold} ? "$o{hold}:$work/hold-$lane_name" : '';
    my $pid = $net->spawn($l->{ctl}, "ctl-$lane_name$n", "$root/hopbench", 'run',
        "$work/" . ($o{shape} // 'fanout') . "-$lane_name.cfg",
        '--hosts', "$work/hosts.cfg", '--cert', "$work/keys/ctl.cert_secret",
        '--set', "timeout=$o{timeout}", '--sizes', $o{sizes} // '64,128',
        qw(--duration 0.2 --set warmup=0.1 --quiet --output), "$work/run-$lane_name$n",
        ($o{flat} ? () : qw(--set rate=2000)), @{ $o{more} // [] });
    return ($pid, $n);
}

sub rows { my $f = "$work/run-$lane_name$_[0]/results.csv"; return -s $f ? @{ csv($f)->{rows} } : () }
sub nrows { my @rows = rows(@_); return scalar @rows }
sub said { return Hopbench::slurp("$work/ctl-$lane_name$_[0].err") }
sub hold { return "$work/hold-$lane_name" }
sub arm { write_file(hold(), '') }
sub held { return -e hold() . '.held' }

# Started again while the agents still end the last run (refused busy),
# until a run reaches 'ready' (rows: its first size measured; held: at
# its hold) or 'until' passes: its pid, number and start
sub run_served {
    my ($until, $ready, %o) = @_;
    while (time < $until) {
        my $start = time;
        unlink hold(), hold() . '.held';
        arm() if $ready eq 'held';
        my ($pid, $n) = run_start(%o);
        while (1) {
            return ($pid, $n, $start) if $ready eq 'held' ? held() : nrows($n) >= 3;
            last if defined $net->reap($pid);
            sleep 0.005;
        }
        notice("lane $lane_name run $n ended before it was served: " . said($n))
            if time > $until - 1;
        sleep 0.05;
    }
    return;
}

sub run_wait { return $net->finish(@_) }

# The lane's one stage process on its host i: its pid
sub stage_pid {
    my @found = $net->stage_processes($lane{$lane_name}{hosts}[ $_[0] ]);
    return @found == 1 && $found[0] =~ /: (\d+)$/ ? $1 : undef;
}

# ------------------------------------------------------------------------
# One case: a run served, the fault, then the checks.  $fault->($pid)
# places it and returns when, what must be said (a regex), the hosts it
# may name, the rows it keeps at least, and what to undo after

my $ended;
sub case {
    my ($case, $timeout, $ready, $fault, %o) = @_;
    my $l = $lane{$lane_name};
    my ($pid, $n, $started) = run_served($ended + $timeout + 5, $ready, timeout => $timeout, %o);
    check(defined $pid, "$case: a run is served") or return;
    check($started - $ended < $timeout + 5,
          sprintf("$case: served when started %.2f s after the last run ended", $started - $ended));
    $early = undef; #  the run's exit status, if it ended before its fault
    my ($at, $want, $named, $keep, $undo) = $fault->($pid);
    my $rc = defined $early ? $early >> 8 : run_wait($pid, 3 * $timeout + 15);
    $ended = time;
    $net->stop($pid, 'KILL') if $rc < 0; #  not left running
    my $took = $ended - $at;
    my $err = said($n);
    my @left = $net->stages_left($at + $timeout + 5, @{ $l->{hosts} });
    my $cleared = time - $at;
    $undo->() if $undo;
    my @rows = rows($n);
    notice(sprintf("case %-26s timeout %2g: the run ended %.2f s after the fault, "
                   . "stages gone %.2f s after; %d rows kept", $case, $timeout, $took, $cleared,
                   scalar @rows));
    notice("case $case: $_") for split /\n/, $err;
    check($rc == 1, "$case: exit 1", "got $rc: $err");
    check($took < $timeout + 5, sprintf("$case: ended within timeout + 5 s (%.2f s)", $took));
    check(scalar($err =~ $want), "$case: says what happened, where", $err);
    my %hosts = map { $_ => 1 } @all;
    my @named = sort keys %{ { map { $_ => 1 } grep { $hosts{$_} } $err =~ /\b([hgf][1-4])\b/g } };
    check("@named" eq $named, "$case: names " . ($named || 'no host') . ' and no other', $err);
    check(@rows >= $keep && !grep({ $_->{msgs_per_sec} !~ /^[\d.]+$/ } @rows),
          "$case: the finished sizes are kept (" . @rows . " rows, at least $keep)");
    check(!@left, "$case: no stage process left on any host within timeout + 5 s", "@left");
}

# The fault placed the moment the controller is held before its
# question, once the run has kept 'keep' rows (held before that, it is
# let go, and held again at the next time it asks): $place->() puts it
# there and returns what must be said, the hosts named, the rows kept
# and what to undo
sub at_hold {
    my ($timeout, $keep, $place) = @_;
    return sub {
        my ($pid) = @_;
        my $until = time + 3 * $timeout + 15;
        while (time < $until) {
            sleep 0.002 while !held() && time < $until && !defined($early = $net->reap($pid));
            last if !held() || nrows($runs) >= $keep;
            unlink hold(); #  let go, and armed again once it has gone on
            sleep 0.001 while held() && time < $until;
            arm();
        }
        my $at = time;
        my @said = held() ? $place->() : (qr/^(?!)/, '', 0);
        unlink hold();
        return ($at, @said);
    };
}

# A lane's host i: its link cut, the host's loss said in its one wording
# ("stage S: host H: ..." of its stage, or "host H (agent ...): ..." of
# its agent), after nothing else
sub cut {
    my ($i, $timeout, $of, $keep) = @_;
    my $host = $lane{$lane_name}{hosts}[$i];
    my $why = qr/no word from its agent for \Q$timeout\E s \(its host or link is down, or it hangs\)/;
    my %want = (
        stage => qr/^hopbench: stage \Q$stages[$i]\E: host \Q$host\E: $why$/m,
        agent => qr/^hopbench: host \Q$host\E \(agent tcp:[^)]*\): $why$/m,
        hello => qr/^hopbench: host \Q$host\E \(agent tcp:[^)]*\): no answer within \Q$timeout\E\.0 s \(is its agent running, and at this address\?\)$/m);
    return sub {
        $net->link($host, 'down');
        return ($want{$of}, $host, $keep, sub { $net->link($host, 'up') });
    };
}

# Each question: the host asked (its index in the lane), whose words say
# the loss, the rows kept when the fault comes (the first size's three,
# or the first combination's six for SPEC and START, and for END and BYE,
# which come after the sizes), options.  SPEC's loss is said of the
# host's stage: its START is asked before SPEC's answer is awaited
my @questions = (
    [ 'HELLO',     2, 'hello', 0 ],
    [ 'CLOCK',     2, 'agent', 0 ],
    [ 'SPEC',      2, 'stage', 6, more => [ '--sweep', 'hwm=1000,1001' ] ],
    [ 'START',     2, 'stage', 6, more => [ '--sweep', 'hwm=1000,1001' ] ],
    [ 'PORTS',     1, 'stage', 3 ],
    [ 'SETUP',     2, 'stage', 3 ],
    [ 'HANDSHAKE', 0, 'stage', 3 ],
    [ 'RUN',       2, 'stage', 3 ],
    [ 'COUNTS',    2, 'stage', 3 ],
    [ 'SHARED',    2, 'stage', 3 ],
    [ 'THREADS',   2, 'stage', 3 ],
    [ 'CPU',       2, 'stage', 3 ],
    [ 'WAITS',     2, 'stage', 3 ],
    [ 'TRACE',     2, 'stage', 3, more => [qw(--profile syscalls)] ],
    [ 'TRACED',    2, 'stage', 3, more => [qw(--profile syscalls)] ],
    [ 'TEARDOWN',  2, 'stage', 3 ],
    [ 'END',       2, 'stage', 6 ],
    [ 'BYE',       2, 'agent', 6 ],
);

sub question {
    my ($q, $timeout, $try) = @_;
    my ($word, $i, $of, $keep, %o) = @$q;
    my $host = $lane{$lane_name}{hosts}[$i];
    $o{hold} = "$word\@$host";
    case("$word\@$host" . (long() ? " T=$timeout #$try" : ''), $timeout, 'held',
         at_hold($timeout, $keep, cut($i, $timeout, $of, $keep)), %o);
}

# The controller's own link cut: every agent silent at once
sub controller_cut {
    my $l = $lane{$lane_name};
    case('controller', 2, 'rows', sub {
        my $at = time;
        $net->link($l->{ctl}, 'down');
        my $names = join ', ', @{ $l->{hosts} };
        return ($at, qr/^hopbench: no agent answered for 2 s \(\Q$names\E\): the controller has lost its network, or cannot reach any host$/m,
                join(' ', sort @{ $l->{hosts} }), 3, sub { $net->link($l->{ctl}, 'up') });
    });
}

# sub.1 stopped at a window's edge: the broker, sending to it flat out,
# blocks (small queues: it does so within a few messages), and its
# COUNTS (the engine answers between messages) do not come, whichever
# wait ends first: the engine's, or the controller's
sub frozen_sub {
    my $h = $lane{$lane_name}{hosts};
    case('frozen sub.1', 2, 'held', at_hold(2, 3, sub {
        my $sub = stage_pid(2);
        kill 'STOP', $sub if $sub;
        return (qr/^hopbench: stage broker: host \Q$h->[1]\E: no COUNTS within 2\.0 s$/m, $h->[1], 3);
    }), hold => "CPU\@$h->[2]", flat => 1,
       more => [qw(--set hwm=10 --set tcp_buffer=4096)]);
}

# The third host's agent stopped (SIGSTOP) mid-sweep for three timeouts:
# the run ends naming it; sub.1's process there ends within timeout + 5 s
# though its agent is still stopped (it sees its parent stopped past the
# timeout); and once the agent runs again (SIGCONT) it ends the run it
# was given up on before it reads what waited in its queues: the next
# controller is served at once, not a timeout later
sub frozen_agent {
    my $host = $lane{$lane_name}{hosts}[2];
    my $cont;
    case("frozen agent $host", 2, 'rows', sub {
        my $at = time;
        kill 'STOP', $agent{$host};
        return ($at, qr/^hopbench: stage sub\.1: host \Q$host\E: no word from its agent for 2 s/m, $host, 3,
                sub { sleep 0.05 while time < $at + 6; kill 'CONT', $agent{$host}; $cont = time });
    });
    $cont //= time;
    my ($pid, $n, $started) = run_served($cont + 2, 'rows', timeout => 2);
    check(defined $pid && $started - $cont < 2,
          sprintf("frozen agent $host: once it runs again, the next run is served %.2f s later",
                  ($started // 99) - $cont));
    check(defined $pid && run_wait($pid, 60) == 0, "frozen agent $host: and that run ends well",
          defined $n ? said($n) : '');
    check(scalar(join('', map { Hopbench::slurp($_) } glob("$work/agent-$host-*.err"))
              =~ /this agent did not run for \d+\.\d s \(stopped\?\), longer than the run's timeout \(2 s\)/),
          "frozen agent $host: its log says why it ended the run");
    $ended = time;
}

# Two controllers for the same hosts at once, naming them in opposite
# orders: exactly one is served; the other is refused, busy, naming the
# host both claim first (the first by name)
sub races {
    my ($count) = @_;
    my $first = (sort @{ $lane{$lane_name}{hosts} })[0];
    my @won;
    for my $race (1 .. $count) {
        sleep 0.05 while time < $ended + 0.2;
        my ($a, $na) = run_start(timeout => 5, sizes => 64);
        my ($b, $nb) = run_start(timeout => 5, sizes => 64, shape => 'reverse');
        my %rc = (fanout => run_wait($a, 60), reverse => run_wait($b, 60));
        $ended = time;
        my @winners = grep { $rc{$_} == 0 } sort keys %rc;
        my ($loser) = grep { $rc{$_} != 0 } sort keys %rc;
        my $lost = $loser ? said($loser eq 'fanout' ? $na : $nb) : '';
        push @won, @winners == 1 ? $winners[0] : 'none';
        check(@winners == 1 && $rc{$loser} == 1,
              "race $race: exactly one of two controllers is served (exit $rc{fanout} and $rc{reverse})",
              said($na) . said($nb));
        check(scalar($lost =~ /^hopbench: host \Q$first\E \(agent tcp:[^)]*\): busy, serving .* since \S+$/m),
              "race $race: the other is refused naming $first, where it met the winner", $lost);
    }
    notice("races: " . join(' ', map { my $w = $_; "$w " . grep({ $_ eq $w } @won) } qw(fanout reverse none)));
}

# A controller killed mid-run: its agents see its connection close and
# are free at once; the next run, started once the killed one is gone
# (reaped: its sockets closed), is served within 1.5 s of its death.  How
# long the kernel took to end it (a busy machine: up to 1.6 s) is noted,
# not held to the bound: that part is the machine's, not the agents'
sub killed {
    my ($tries) = @_;
    for my $try (1 .. $tries) {
        my ($pid, $n, $started) = run_served($ended + 10, 'rows', timeout => 5,
                                             sizes => '64,128,256,512');
        check(defined $pid, "killed controller $try: a run is served") or return;
        sleep 0.1;
        my $killed = time;
        kill 'KILL', $pid;
        $net->finish($pid, 5);
        my $died = time;
        my ($busy, $served) = (0);
        while (!defined $served && time < $died + 10) {
            my $start = time;
            my ($p, $m) = run_start(timeout => 5, sizes => 64);
            my $rc;
            sleep 0.005 until defined($rc = $net->reap($p)) || nrows($m) >= 3;
            $served = $start - $died if !defined $rc || $rc == 0;
            $busy += defined $rc && said($m) =~ /busy/;
            check(run_wait($p, 60) == 0, "killed controller $try: the next run ends well", said($m))
                if defined $served;
        }
        $ended = time;
        notice(sprintf("killed controller %2d: gone %.3f s after the kill; the next run served when "
                       . "started %.3f s after that (%d refused busy before)",
                       $try, $died - $killed, $served // -1, $busy));
        check(defined $served && $served < 1.5,
              sprintf("killed controller $try: the next run starts within 1.5 s of its end (%.3f s)",
                      $served // -1));
    }
}

# ------------------------------------------------------------------------
# The lanes' cases, side by side (HOPBENCH_FAULT_CASES=REGEX: only the
# cases whose names match, for a closer look)

my @timeouts = long() ? (5, 10) : (2);
my $tries = long() ? 2 : 1;
my @cases;
for my $t (@timeouts) {
    for my $try (1 .. $tries) {
        push @cases, map { my $q = $_; [ $q->[0], sub { question($q, $t, $try) } ] } @questions;
    }
}
push @cases, [ 'controller', \&controller_cut ], [ 'frozen sub', \&frozen_sub ],
    [ 'frozen agent', \&frozen_agent ], [ 'races', sub { races(long() ? 20 : 5) } ],
    [ 'killed', sub { killed(long() ? 10 : 1) } ];
my $only = $ENV{HOPBENCH_FAULT_CASES} // '';
@cases = grep { $_->[0] =~ /$only/ } @cases;
#  the cases dealt to the lanes in turn
my @lanes = sort keys %lane;
my %todo = map { $_ => [] } @lanes;
push @{ $todo{ $lanes[ $_ % @lanes ] } }, $cases[$_][1] for 0 .. $#cases;

my %child;
for my $l (sort keys %lane) {
    my $pid = fork() // BAIL_OUT("fork: $!");
    if ($pid == 0) {
        ($lane_name, $runs, $ended) = ($l, 0, time);
        $_->() for @{ $todo{$l} };
        open my $fh, '>', "$work/said-$l" or POSIX::_exit(1);
        print $fh join("\t", @$_) =~ s/\n/\\n/gr, "\n" for @said;
        close $fh;
        POSIX::_exit(0); #  the parent keeps the namespaces and the agents
    }
    $child{$l} = $pid;
}
for my $l (sort keys %lane) {
    waitpid $child{$l}, 0;
    is($? >> 8, 0, "lane $l: its cases ran");
    for my $line (split /\n/, Hopbench::slurp("$work/said-$l")) {
        my ($ok, $name, $diag) = split /\t/, $line, 3;
        $diag = ($diag // '') =~ s/\\n/\n/gr;
        if ($ok < 0) { note("lane $l: $name"); next }
        ok($ok, "lane $l: $name") or diag $diag;
    }
}

# After every case, a run is served on each lane and ends well
($lane_name, $runs, $ended) = ('a', 1000, time);
my ($pid, $n) = run_served(time + 10, 'rows', timeout => 5);
ok(defined $pid && run_wait($pid, 60) == 0, 'after every case, a run is served and ends well')
    or diag defined $n ? said($n) : map { "$_: " . Hopbench::slurp($_) } glob("$work/agent-*.err");
is(join(' ', $net->stages_left(time + 10, @all)), '', 'no stage process left on any host');
for my $host (@all) {
    is($net->stop($agent{$host}), 0, "the agent of $host ends cleanly on SIGTERM");
}
done_testing();
