# Hosts.pm: the hosts of a multi-host test, set up as 75-host-faults.t
# and 78-fleet.t share them: network namespaces (Netns.pm) on a bridge,
# CURVE keys for the controller and each host with the hosts.cfg naming
# them, an agent on each, and hopbench run in the controller's namespace
# with that hosts file and the controller's key.
#
#     Hosts::able();                      # skip_all unless root with ip
#     my $hosts = Hosts->new(id => 'hf' . ($$ % 1000000),
#         subnet => '169.254.78', controller => 10, hosts => [qw(h1 h2)]);
#     my $said = $hosts->keys;            # '' or what failed
#     $hosts->agent($_) or BAIL_OUT(...) for $hosts->names;
#     my $pid = $hosts->controller('ctl1', {}, 'run', 'x.cfg', '--sizes', 64);
#     my $rc = $hosts->net->finish($pid, 30);
#
# Host hN has address subnet.N, the controller (host "c") subnet.
# controller; with third => X (subnet => '169.254', a /16 for hundreds of
# hosts) hN is subnet.X.N up to h250, then subnet.X+1.1 and so on; work is a directory of its own (mode 0755: the agents read
# their keys there); the namespaces go at exit, also on SIGINT and SIGTERM.
package Hosts;

use strict;
use warnings;
use Cwd qw(getcwd);
use Hopbench;
use Netns;
use Test::More;

# The test is skipped unless it can make network namespaces
sub able {
    plan skip_all => 'hosts are network namespaces: root only' if $> != 0;
    plan skip_all => 'needs iproute2 (ip)' if system('command -v ip >/dev/null') != 0;
}

# Host hN's number in its subnet: N, or with third (a /16 of hundreds of
# hosts) X.Y, 250 hosts to each X from third up
sub s_number {
    my ($n, $third) = @_;
    return $n if !defined $third;
    return ($third + int(($n - 1) / 250)) . '.' . (($n - 1) % 250 + 1);
}

# The namespaces up (or BAIL_OUT); hopbench is the project's, from the
# current directory (the test's chdir to the root)
sub new {
    my ($class, %o) = @_;
    my $work = tmp();
    chmod 0755, $work;
    my %addr = (c => $o{controller}, map { /(\d+)$/; ($_ => s_number($1, $o{third})) } @{ $o{hosts} });
    my $self = bless {
        work => $work, names => $o{hosts}, agent => {},
        hopbench => getcwd() . '/hopbench',
        net => Netns->new(id => $o{id}, subnet => $o{subnet}, work => $work, hosts => \%addr,
            mask => defined $o{third} ? 16 : 24),
    }, $class;
    $SIG{INT} = $SIG{TERM} = sub { $self->{net}->cleanup; exit 1 };
    $self->{net}->up or BAIL_OUT('cannot make the test\'s network namespaces');
    return $self;
}

sub net   { return $_[0]{net} }
sub work  { return $_[0]{work} }
sub names { return @{ $_[0]{names} } }

# Keys for the controller and each host, and work/hosts.cfg: '' or what
# failed
sub keys {
    my ($self) = @_;
    return $self->{net}->keys($self->{hopbench}, $self->names);
}

# host's agent started (again): its pid once it serves, else undef
sub agent {
    my ($self, $host) = @_;
    return $self->{agent}{$host} = $self->{net}->agent($self->{hopbench}, $host);
}

# host's agent's pid, the last started (undef once stopped)
sub agent_pid { return $_[0]{agent}{ $_[1] } }

# host's agent stopped with signal (Netns::stop, TERM by default) and
# forgotten: its exit status, or undef when none was running
sub agent_stop {
    my ($self, $host, $signal) = @_;
    my $pid = delete $self->{agent}{$host} // return undef;
    return $self->{net}->stop($pid, $signal);
}

# hopbench COMMAND TOPOLOGY ARGS in the controller's namespace, its output
# in work/NAME.out and .err, with --hosts (work/hosts.cfg, or o{hosts})
# and the controller's --cert; o{wrap}: a command before it
# (/usr/bin/time -v): its pid
sub controller {
    my ($self, $name, $o, $command, $topology, @args) = @_;
    return $self->{net}->spawn('c', $name, @{ $o->{wrap} // [] }, $self->{hopbench},
        $command, $topology, '--hosts', $o->{hosts} // "$self->{work}/hosts.cfg",
        '--cert', "$self->{work}/keys/ctl.cert_secret", @args);
}

1;
