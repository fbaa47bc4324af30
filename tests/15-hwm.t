#!/usr/bin/perl
# Every hwm the key table accepts works, 1 included: libzmq drops a
# subscription that finds its pipe at SNDHWM (xsub.cpp), so subscribers
# and proxy frontends send theirs without a limit, and the slow-joiner
# handshake always completes.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();

# direct: a SUB's two subscriptions ("" and its own topic) through a pipe
# of one; fanout: a proxy forwarding five through its frontend
my @cases = (
    [ 'direct.cfg', 'tcp', 1 ], [ 'direct.cfg', 'ipc', 1 ],
    [ 'fanout.cfg', 'tcp', 1 ], [ 'fanout.cfg', 'ipc', 2 ],
    [ 'chain3.cfg', undef, 1 ],
);
for my $case (@cases) {
    my ($file, $transport, $hwm) = @$case;
    my $name = "$file hwm=$hwm" . ($transport ? " over $transport" : '');
    my $out = tmp();
    my @transport = $transport ? ('--set', "transport=$transport") : ();
    my ($rc, undef, $err) = hopbench('run', "topologies/$file", @transport,
        '--set', "hwm=$hwm", qw(--sizes 64 --duration 0.2 --set timeout=5 --quiet --output), $out);
    is($rc, 0, "$name: exit 0") or diag $err;
    my @rows = @{ csv("$out/results.csv")->{rows} };
    ok(@rows && !grep({ $_->{received} == 0 } @rows), "$name: every hop delivered");
}
done_testing();
