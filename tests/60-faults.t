#!/usr/bin/perl
# Faults: a bind that fails, a hop that delivers nothing, a bad timeout.
# Each run stops within seconds, exit 1 (2 for bad input), with a message
# naming the endpoint or hop and the stage, and leaves no process behind
# and nothing in its private TMPDIR.
#
# With today's keys both ends of a hop use one endpoint, so "a subscriber
# connecting to an endpoint nobody binds" is built from the one place
# where bind and connect read an endpoint differently: libzmq binds
# tcp://lo:PORT on the interface named lo, but connects to a host named
# lo, which does not resolve.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use IO::Socket::INET;
use Socket qw(getaddrinfo);
use Time::HiRes qw(time);
use Test::More;

chdir "$FindBin::Bin/..";
my $work = tmp();      # configs, outputs, stdout and stderr of the runs
chmod 0755, $work;     # (readable by nobody, for the ipc case as root)
my $runs = 0;

# Run hopbench with TMPDIR set to $tmpdir and a marker in its environment;
# returns exit status, seconds, stderr and the pids still carrying the marker
sub run_fault {
    my ($tmpdir, @args) = @_;
    my $marker = "$$-" . ++$runs;
    my $err = "$work/err.$runs";
    my $start = time;
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        $ENV{TMPDIR} = $tmpdir;
        $ENV{HOPBENCH_FAULT_TEST} = $marker;
        open STDOUT, '>', "$work/out.$runs" or die;
        open STDERR, '>', $err or die;
        exec 'timeout', '-k', '5', '60', @args;
        die "exec: $!";
    }
    waitpid($pid, 0);
    my $status = $? >> 8;
    return ($status, time - $start, Hopbench::slurp($err), [ s_marked($marker) ]);
}

# Processes whose environment carries the marker
sub s_marked {
    my ($marker) = @_;
    my @left;
    for my $environ (glob '/proc/[0-9]*/environ') {
        open my $fh, '<', $environ or next;
        local $/;
        my $env = <$fh> // '';
        push @left, $environ =~ m{/proc/(\d+)/} if $env =~ /\bHOPBENCH_FAULT_TEST=\Q$marker\E\0/;
    }
    return @left;
}

sub entries {
    my ($dir) = @_;
    opendir my $dh, $dir or return ("cannot read $dir");
    return grep { !/^\.\.?$/ } readdir $dh;
}

# One fault: exit status, time bound, message, nothing left behind
sub fault_ok {
    my (%case) = @_;
    my $tmpdir = $case{tmpdir} // tmp();
    my ($status, $took, $err, $left) = run_fault($tmpdir, @{ $case{command} });
    my $name = $case{name};
    note sprintf('%s: exit %d after %.2f s: %s', $name, $status, $took, $err =~ s/\n.*//sr);
    is($status, $case{status}, "$name: exit $case{status}") or diag $err;
    ok($took < $case{within}, "$name: ended within $case{within} s")
        or diag sprintf('took %.1f s', $took);
    like($err, $case{message}, "$name: the message names what failed");
    is("@$left", '', "$name: no process left behind");
    is(join(' ', entries($tmpdir)), '', "$name: its TMPDIR is empty");
}

sub topology {
    my ($name, $text) = @_;
    write_file("$work/$name.cfg", $text);
    return "$work/$name.cfg";
}

my @run = qw(./hopbench run);
my @short = qw(--sizes 64 --duration 0.2 --set warmup=0.1 --quiet);

# --- a tcp bind that fails: the port is taken by a listener of ours
my $listener = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1',
                                     LocalPort => 0, ReuseAddr => 1)
    or die "listener: $!";
my $port = $listener->sockport;
my $busy = topology('busy', <<"EOF");
topology = busy
    timeout = 2
publisher = pub
hop = tcp
    endpoint = tcp://127.0.0.1:$port
proxy = broker
hop = tcp
subscriber = sub
EOF
for my $engine (qw(steerable zproxy forwarder)) {
    fault_ok(name => "tcp port in use, $engine broker",
             command => [ @run, $busy, @short, '--set', "engine=$engine",
                          '--set', $engine eq 'zproxy' ? 'mode=flood' : 'mode=capacity',
                          '--output', "$work/busy-$engine" ],
             status => 1, within => 5,
             message => qr/^hopbench: stage broker: bind tcp:\/\/127\.0\.0\.1:$port \(hop 1\): Address already in use$/m);
}
fault_ok(name => 'tcp port in use, publisher binds',
         command => [ @run, 'topologies/direct.cfg', @short, '--set',
                      "hop1.endpoint=tcp://127.0.0.1:$port", '--output', "$work/busy-direct" ],
         status => 1, within => 5,
         message => qr/^hopbench: stage pub: bind tcp:\/\/127\.0\.0\.1:$port \(hop 1\): Address already in use$/m);
close $listener;

# Two faults need a user that root is not: a directory root could not
# write, a thread limit root is exempt from.  As root those runs drop to
# nobody (setpriv), in directories nobody may write
my @as = ();
my $who_ok = $> != 0;
if ($> == 0 && system('command -v setpriv >/dev/null') == 0) {
    @as = qw(setpriv --reuid=nobody --regid=nogroup --clear-groups);
    $who_ok = 1;
}
my $uid = @as ? (getpwnam('nobody'))[2] // 65534 : $<;
my %dirs = map { $_ => "$work/$_" } qw(ro tmp out);
mkdir $_ or die "$_: $!" for values %dirs;
chmod 0555, $dirs{ro};
chown $uid, -1, $dirs{tmp}, $dirs{out};

# --- an ipc endpoint in a directory that is not writable
SKIP: {
    skip 'root without setpriv(1): every directory is writable', 3 * 5 + 1 unless $who_ok;
    my $ro = topology('ro', <<"EOF");
topology = ro
    timeout = 2
publisher = pub
hop = ipc
    endpoint = ipc://$dirs{ro}/hop1.ipc
proxy = broker
hop = ipc
subscriber = sub
EOF
    for my $engine (qw(steerable zproxy forwarder)) {
        fault_ok(name => "ipc in a read-only directory, $engine broker",
                 tmpdir => $dirs{tmp},
                 command => [ @as, @run, $ro, @short, '--set', "engine=$engine",
                              '--set', $engine eq 'zproxy' ? 'mode=flood' : 'mode=capacity',
                              '--output', "$dirs{out}/$engine" ],
                 status => 1, within => 5,
                 message => qr/^hopbench: stage broker: bind ipc:\/\/\Q$dirs{ro}\E\/hop1\.ipc \(hop 1\): Permission denied$/m);
    }
    is(join(' ', entries($dirs{ro})), '', 'read-only directory: still empty');
}

# --- threads run out: RLIMIT_NPROC (which counts the user's threads) a few
# above what the user runs now, and more stages than that
sub tasks_of {
    my ($owner) = @_;
    my $n = 0;
    for my $status (glob '/proc/[0-9]*/task/[0-9]*/status') {
        open my $fh, '<', $status or next;
        while (<$fh>) {
            $n++, last if /^Uid:\s+(\d+)/ && $1 == $owner;
        }
    }
    return $n;
}
SKIP: {
    skip 'root without setpriv(1): root has no thread limit', 5 unless $who_ok;
    skip 'no prlimit(1)', 5 unless system('command -v prlimit >/dev/null') == 0;
    my $limit = tasks_of($uid) + 6;
    fault_ok(name => "threads run out (nproc $limit)",
             tmpdir => $dirs{tmp},
             command => [ @as, 'prlimit', "--nproc=$limit", @run, 'topologies/direct.cfg',
                          @short, '--set', 'sub.count=40', '--output', "$dirs{out}/nproc" ],
             status => 1, within => 5,
             message => qr/^hopbench: stage sub\.\d+: cannot start a thread: Resource temporarily unavailable$/m);
}

# --- a hop that delivers nothing: the upstream cannot reach a proxy bound
# on the interface lo (tcp://lo:PORT); skipped where the name lo resolves
# or the resolver is slow (libzmq would wait for it)
my $t0 = time;
my ($gai_err) = getaddrinfo('lo', '5555');
my $resolver = time - $t0;
SKIP: {
    skip "the host name 'lo' resolves here", 2 * 5 unless $gai_err;
    skip sprintf("the resolver took %.1f s to fail for 'lo'", $resolver), 2 * 5
        if $resolver > 0.5;
    my $probe = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => 0);
    my $free = $probe->sockport;
    close $probe;
    my $lo = topology('lo', <<"EOF");
topology = lo
    timeout = 2
publisher = pub
hop = tcp
    endpoint = tcp://lo:$free
proxy = broker
hop = tcp
subscriber = sub
EOF
    fault_ok(name => 'pubsub, the publisher cannot reach the broker',
             command => [ @run, $lo, @short, '--output', "$work/lo-pubsub" ],
             status => 1, within => 2 + 2.5,
             message => qr/^hopbench: stage pub: the subscription of sub did not arrive within 2 s \(hops 1-2: pub -> broker -> sub\)$/m);
    my $lo_pp = topology('lo-pp', <<"EOF");
topology = lo-pp
    pattern = pushpull
    timeout = 2
pusher = push
hop = tcp
    endpoint = tcp://lo:$free
proxy = streamer
hop = tcp
puller = pull
EOF
    fault_ok(name => 'pushpull, the pusher cannot reach the streamer',
             command => [ @run, $lo_pp, @short, '--output', "$work/lo-pushpull" ],
             status => 1, within => 2 + 2.5,
             message => qr/^hopbench: hop 1 \(push -> streamer\) delivered nothing in 2 s$/m);
}

# --- bad timeouts never run anything
for my $bad ('0', '-1', '0.1', '3601', 'abc', '', 'nan', 'inf', '2x') {
    fault_ok(name => "--set timeout='$bad'",
             command => [ @run, 'topologies/direct.cfg', @short, '--set', "timeout=$bad",
                          '--output', "$work/never" ],
             status => 2, within => 5,
             message => qr/^hopbench: --set timeout=\Q$bad\E: timeout must be (a number|between 0\.5 and 3600), not '\Q$bad\E'$/m);
}
ok(!-e "$work/never", 'bad timeouts: no results directory');
done_testing();
