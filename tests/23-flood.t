#!/usr/bin/perl
# Flood mode on every shipped pubsub topology, at its smallest size and at
# 64 KiB: hwm_bound says which rows the HWM bounds (a dropping hop at the
# rate a flooding XPUB's HWM allows), and 64 KiB over tcp or ipc never is.
# The other modes are tests/23-modes.t's (a file of its own, so that make
# check runs the two side by side).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Test::More;

chdir "$FindBin::Bin/..";
# stall_ratio = 0: a trial the machine stalled is tests/31-stalled.t's, not
# flood's (under ASan on a busy machine many-subs can stall twice)
my @quick = qw(--set warmup=0.05 --set stall_ratio=0 --quiet);

# The shipped topologies whose pattern is pubsub, and their smallest size
# (8, or 16 where messages start with an 8-byte topic: topics.cfg)
my (@pubsub, %least);
for my $file (sort(glob('topologies/*.cfg'), glob('topologies/*/*.cfg'))) {
    my ($rc, $out) = hopbench('check', $file);
    push @pubsub, $file if $rc == 0 && $out =~ /ok \(pubsub,/;
    ($rc) = hopbench('check', $file, '--sizes', '8');
    $least{$file} = $rc == 0 ? 8 : 16;
}
ok(@pubsub >= 6, 'six or more shipped pubsub topologies: ' . scalar @pubsub);

# The rate a flooding XPUB's HWM allows per pipe (README: Modes)
sub bound {
    my ($transport, $hwm, $tsc) = @_;
    return ($transport eq 'inproc' ? 2 * $hwm : $hwm) * $tsc / 3e6;
}

for my $file (@pubsub) {
    my ($name) = $file =~ m{([^/]+)\.cfg$};
    # flood: hwm_bound is 1 exactly where a dropping hop runs at the bound
    my $out = tmp();
    my ($rc, $stdout, $err) = hopbench('run', $file, '--sizes', "$least{$file},65536",
        qw(--duration 0.2 --set mode=flood), @quick, '--output', $out);
    is($rc, 0, "$name flood: exit 0") or diag $err;
    my $t = csv("$out/results.csv");
    my $meta = decode_json(Hopbench::slurp("$out/metadata.json"));
    my $tsc = $meta->{tsc_hz};
    ok($tsc > 1e8, "$name flood: metadata has the TSC rate ($meta->{tsc_source})");
    my $config = Hopbench::slurp("$out/config.cfg");
    my ($hwm) = $config =~ /^    hwm = "(\d+)"/m;
    for my $r (@{ $t->{rows} }) {
        my $what = "$name flood size $r->{size} hop $r->{hop} $r->{to}";
        is($r->{mode}, 'flood', "$what: mode column");
        my $b = bound($r->{transport}, $hwm, $tsc);
        # the mechanism: a drop while the receiver was busy less than 0.8
        # of a CPU, up to 10 % above the bound, from a quarter of it where
        # the row was not starved, from a tenth where it was (from 75 %
        # where the receiver's CPU time is unknown)
        my $ns = $r->{to_cpu_ns_per_msg};
        my $unknown = !defined $ns || $ns eq '' || $ns < 0;    # written empty
        my $low = $unknown ? 0.75 : $ns * $r->{msgs_per_sec} / 1e9 >= 0.8 ? 2
            : $r->{starved} > 0 ? 0.1 : 0.25;
        my $expect = $hwm > 0 && $r->{lost} > 0
            && $r->{msgs_per_sec} >= $low * $b && $r->{msgs_per_sec} <= 1.1 * $b ? 1 : 0;
        is($r->{hwm_bound}, $expect, "$what: hwm_bound $expect (bound $b)");
        # over tcp and ipc 64 KiB is bound by its bytes (inproc passes a
        # pointer, so there the HWM can still be what sets the rate)
        is($r->{hwm_bound}, 0, "$what: 64 KiB over $r->{transport} is not HWM-bound")
            if $r->{size} == 65536 && $r->{transport} ne 'inproc';
    }
    like($stdout, qr/\(pubsub, flood\)/, "$name flood: the table names the mode");
    like($stdout, qr/HWM: this rate is set by the HWM/, "$name flood: the HWM line")
        if grep { $_->{hwm_bound} } @{ $t->{rows} };
}
done_testing();
