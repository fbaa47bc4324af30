# Netns.pm: hosts as network namespaces, for the tests that run stages
# on several hosts.
#
#     my $net = Netns->new(id => 'hf123', subnet => '169.254.78',
#                          hosts => { c => 10, h1 => 1, h2 => 2 }, work => $dir);
#     $net->up or BAIL_OUT(...);
#     my $pid = $net->spawn('h1', 'agent-h1', '/path/hopbench', 'agent', ...);
#     $net->keys('/path/hopbench', qw(h1 h2)) eq '' or BAIL_OUT(...);
#     my $agent = $net->agent('/path/hopbench', 'h1') or BAIL_OUT(...);
#     my $rc = $net->finish($pid, 30);   # its exit status, -1 still running
#     my @left = $net->stages_left(time + 7, qw(h1 h2));
#
# Every host is a namespace NAME = id . host, joined by a veth pair (its
# end is eth0) to a bridge in a namespace of its own, with the address
# subnet.N/24 (link-local only; subnet.X.Y/16 with mask => 16).  spawn runs a program in a host, its
# stdout and stderr in work/NAME.out and .err; cleanup (also at exit)
# kills what was spawned and removes the namespaces.
package Netns;

use strict;
use warnings;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);

my @all; #  every Netns made, cleaned up at exit

sub new {
    my ($class, %o) = @_;
    my $self = bless { %o, namespaces => [], children => [] }, $class;
    push @all, $self;
    return $self;
}

sub ns { my ($self, $host) = @_; return "$self->{id}$host" }

# A host's address: subnet.N, or with a two-part number (hosts => { h300
# => '82.50' }, subnet => '169.254', mask => 16) subnet.82.50
sub addr { my ($self, $host) = @_; return "$self->{subnet}.$self->{hosts}{$host}" }

sub quiet { shift; return system(join(' ', @_) . ' >/dev/null 2>&1') == 0 }

# ip -batch: these commands, in namespace ns ('' the test's own)
sub batch {
    my ($self, $ns, @commands) = @_;
    my $file = "$self->{work}/ip-" . ++$self->{batches} . '.batch';
    open my $fh, '>', $file or return 0;
    print $fh map { "$_\n" } @commands;
    close $fh or return 0;
    return $self->quiet('ip', ($ns ne '' ? ('-n', $ns) : ()), '-batch', $file);
}

# The bridge's namespace, then each host's joined to it: one ip for all
# the namespaces and links, one for the bridge's ends, one per host for
# its address (a fleet of hundreds is up in seconds)
sub up {
    my ($self) = @_;
    my $br = $self->ns('br');
    my @hosts = sort { $a cmp $b } CORE::keys %{ $self->{hosts} };
    my $mask = $self->{mask} // 24;
    push @{ $self->{namespaces} }, $br, map { $self->ns($_) } @hosts;
    $self->batch('', "netns add $br", map {
        my ($ns, $a, $b) = ($self->ns($_), "$self->{id}${_}a", "$self->{id}${_}b");
        ("netns add $ns", "link add $a type veth peer name $b", "link set $a netns $ns name eth0",
         "link set $b netns $br")
    } @hosts) or return 0;
    $self->batch($br, 'link add br0 type bridge', 'link set br0 up',
        map { "link set $self->{id}${_}b master br0 up" } @hosts) or return 0;
    for my $host (@hosts) {
        $self->batch($self->ns($host), 'addr add ' . $self->addr($host) . "/$mask dev eth0",
            'link set eth0 up', 'link set lo up') or return 0;
    }
    return $self->neighbours(scalar @hosts);
}

# Room in the kernel's one ARP table (all namespaces share it) for n
# hosts on one segment: the controller's and a broker's n neighbours, and
# each host's few.  Past gc_thresh3 (1,024 by default) new neighbours are
# refused, and hosts go unanswered; raised for a fleet, put back at
# cleanup
sub neighbours {
    my ($self, $n) = @_;
    return 1 if $n <= 100;
    for my $k (1 .. 3) {
        my $key = "net.ipv4.neigh.default.gc_thresh$k";
        chomp(my $was = `sysctl -n $key 2>/dev/null`);
        next if $was eq '' || $was >= 8 * $n * 2**($k - 1);
        $self->{sysctl}{$key} //= $was;
        $self->quiet('sysctl', '-q', '-w', "$key=" . 8 * $n * 2**($k - 1)) or return 0;
    }
    return 1;
}

# CURVE pairs for the controller (ctl) and each host in work/keys, and
# work/hosts.cfg naming each host's agent on port 7800: '' or what failed
sub keys {
    my ($self, $hopbench, @hosts) = @_;
    my $keys = "$self->{work}/keys";
    mkdir $keys;
    for my $name ('ctl', @hosts) {
        my $said = `$hopbench keygen $keys --name $name 2>&1`;
        return "keygen $name: $said" if $? != 0;
    }
    open my $fh, '>', "$self->{work}/hosts.cfg" or return "hosts.cfg: $!";
    print $fh "host = $_\n    agent = tcp://" . $self->addr($_) . ":7800\n"
        . "    cert = keys/$_.cert\n" for @hosts;
    close $fh or return "hosts.cfg: $!";
    return '';
}

# Start host's agent (serving the controller's key from keys), its log in
# work/agent-HOST-N.out and .err: its pid once it serves, else undef
sub agent {
    my ($self, $hopbench, $host) = @_;
    my $name = "agent-$host-" . ++$self->{agents};
    my $pid = $self->spawn($host, $name, $hopbench, 'agent', '--bind',
        'tcp://' . $self->addr($host) . ':7800', '--allow', "$self->{work}/keys/ctl.cert",
        '--cert', "$self->{work}/keys/$host.cert_secret");
    for (1 .. 200) {
        open my $fh, '<', "$self->{work}/$name.out" or next;
        local $/;
        return $pid if (<$fh> // '') =~ /serving at/;
    } continue {
        sleep 0.05;
    }
    return undef;
}

# A host's link down (cut) or up again
sub link {
    my ($self, $host, $state) = @_;
    return $self->quiet('ip', '-n', $self->ns($host), 'link', 'set', 'eth0', $state);
}

sub spawn {
    my ($self, $host, $name, @command) = @_;
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', '/dev/null';
        open STDOUT, '>', "$self->{work}/$name.out" or die;
        open STDERR, '>', "$self->{work}/$name.err" or die;
        exec 'ip', 'netns', 'exec', $self->ns($host), @command;
    }
    push @{ $self->{children} }, $pid;
    return $pid;
}

# A spawned program has ended (reaped): its exit status, or undef if it
# runs still
sub reap {
    my ($self, $pid) = @_;
    return undef if waitpid($pid, WNOHANG) != $pid;
    my $status = $?;
    $self->{children} = [ grep { $_ != $pid } @{ $self->{children} } ];
    return $status;
}

# End a spawned program (TERM, KILL after 5 s): its exit status, -1 if killed
sub stop {
    my ($self, $pid, $signal) = @_;
    kill $signal // 'TERM', $pid;
    for (1 .. 100) {
        my $status = $self->reap($pid);
        return $status >> 8 if defined $status;
        sleep 0.05;
    }
    kill 'KILL', $pid;
    waitpid($pid, 0);
    $self->{children} = [ grep { $_ != $pid } @{ $self->{children} } ];
    return -1;
}

# Wait (bounded) for a spawned program to end: its exit status, -1 if it
# runs still after limit seconds; each() is called on every look
sub finish {
    my ($self, $pid, $limit, $each) = @_;
    my $until = time + $limit;
    while (time < $until) {
        $each->() if $each;
        my $status = $self->reap($pid);
        return $status >> 8 if defined $status;
        sleep 0.01;
    }
    return -1;
}

# The stage processes still in these hosts' namespaces at 'until' (none:
# returns as soon as they are gone)
sub stages_left {
    my ($self, $until, @hosts) = @_;
    my @left;
    while (time < $until) {
        @left = $self->stage_processes(@hosts) or return ();
        sleep 0.05;
    }
    return @left;
}

# "hopbench stage ..." processes in these hosts' namespaces: "h1: 4242"
sub stage_processes {
    my ($self, @hosts) = @_;
    my @found;
    for my $host (@hosts) {
        for my $pid (split ' ', `ip netns pids @{[$self->ns($host)]} 2>/dev/null`) {
            open my $fh, '<', "/proc/$pid/cmdline" or next;
            local $/;
            my $cmd = <$fh> // '';
            push @found, "$host: $pid" if $cmd =~ /^[^\0]*hopbench\0stage\0/;
        }
    }
    return @found;
}

sub cleanup {
    my ($self) = @_;
    for my $pid (@{ $self->{children} }) {
        kill 'KILL', $pid;
        waitpid($pid, 0);
    }
    $self->{children} = [];
    $self->quiet('ip', 'netns', 'del', $_) for reverse @{ $self->{namespaces} };
    $self->{namespaces} = [];
    $self->quiet('sysctl', '-q', '-w', "$_=$self->{sysctl}{$_}") for sort { $a cmp $b } CORE::keys %{ $self->{sysctl} // {} };
    $self->{sysctl} = {};
}

END { $_->cleanup for @all }

1;
