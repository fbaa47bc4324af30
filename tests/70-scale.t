#!/usr/bin/perl
# Broker sizing: fan-out, fan-in.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();

# fan-out: a row per subscriber on the last hop, each with traffic
my $out = tmp();
my ($rc, undef, $err) = hopbench(qw(run topologies/fanout.cfg --sizes 1024
    --duration 0.5 --quiet --output), $out);
is($rc, 0, 'fanout: exit 0') or diag $err;
my @rows = @{ csv("$out/results.csv")->{rows} };
my @last = grep { $_->{hop} == 2 } @rows;
is(join(' ', map { $_->{to} } @last), 'sub.1 sub.2 sub.3 sub.4', 'fanout: hop 2 has a row per subscriber');
for (@last) {
    ok($_->{received} > 0 && $_->{msgs_per_sec} > 0, "fanout: $_->{to} gets traffic");
    is($_->{seq_lost}, $rows[0]{lost} + $_->{lost}, "fanout: $_->{to}'s loss is proven");
}

# fan-in through the forwarder: a row per publisher on the first hop
$out = tmp();
($rc, undef, $err) = hopbench(qw(run topologies/fanin.cfg --sizes 1024
    --duration 0.5 --quiet --output), $out);
is($rc, 0, 'fanin: exit 0') or diag $err;
@rows = @{ csv("$out/results.csv")->{rows} };
my @first = grep { $_->{hop} == 1 } @rows;
is(join(' ', map { $_->{from} } @first), 'pub.1 pub.2 pub.3 pub.4', 'fanin: hop 1 has a row per publisher');
ok($_->{received} > 0, "fanin: $_->{from} reaches the broker") for @first;
my ($sub) = grep { $_->{hop} == 2 } @rows;
my $upstream = 0;
$upstream += $_->{lost} for @first;
is($sub->{seq_lost}, $upstream + $sub->{lost}, 'fanin: the subscriber proves the loss of all four');

# fan-in through zmq_proxy_steerable: it cannot tell publishers apart
$out = tmp();
($rc, undef, $err) = hopbench(qw(run topologies/fanin.cfg --sizes 1024
    --duration 0.3 --set engine=steerable --quiet --output), $out);
is($rc, 0, 'fanin steerable: exit 0') or diag $err;
@first = grep { $_->{hop} == 1 } @{ csv("$out/results.csv")->{rows} };
is(join(' ', map { $_->{from} } @first), 'pub.*', 'fanin steerable: one row for the four publishers');
# 128 stages (docs/LIMITS.md's widest tree): more than 99 contexts, so
# libzmq's thread names pass the kernel's 15 characters ("100/ZMQbg/Reape");
# every thread is still the plan's, and no warning says otherwise (no
# stall check: 128 stages flat out on a busy machine stall a window, and
# the retry's warning is the machine's; stalls are tests/31-stalled.t's)
my $tree = "topology = wide\n    sizes = 64\npublisher = pub\nhop\nproxy = core\n";
$tree .= "proxy = e$_\n    from = core\nhop = ipc\nsubscriber = s$_\n" for 1 .. 63;
my $dir = tmp();
write_file("$dir/widetree.cfg", $tree);
$out = "$dir/out";
($rc, undef, $err) = hopbench('run', "$dir/widetree.cfg", qw(--sizes 64
    --duration 0.2 --set timeout=60 --set stall_ratio=0 --quiet --output), $out);
is($rc, 0, '128 stages: exit 0') or diag $err;
my @warned = grep { /warning/ } split /\n/, $err;
is(scalar @warned, 0, '128 stages: no warning') or diag join "\n", @warned[0 .. 4];
my $meta = do { local (@ARGV, $/) = "$out/metadata.json"; <> };
like($meta, qr/"warnings": \[\]/, '128 stages: none in metadata.json');
my @reapers = grep { $_->{thread} =~ m{^ZMQbg/Reaper$} } @{ csv("$out/threads.csv")->{rows} };
ok(@reapers >= 100, '128 stages: every context\'s reaper read back whole (' . @reapers . ')');
done_testing();
