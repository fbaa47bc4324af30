#!/usr/bin/perl
# The three modes of a pubsub run, on every shipped pubsub topology:
# capacity loses nothing, flood says which rows its HWM bounds, search
# finds a rate between a passing and a failing trial and names the
# bottleneck.  And each hop's rate is its own count over its own time.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Test::More;

chdir "$FindBin::Bin/..";
my @quick = qw(--set warmup=0.05 --quiet);

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
    # capacity, the default: back-pressure end to end, nothing lost
    my $out = tmp();
    my ($rc, $stdout, $err) = hopbench('run', $file, qw(--sizes 64 --duration 0.2),
        @quick, '--output', $out);
    is($rc, 0, "$name capacity: exit 0") or diag $err;
    my $t = csv("$out/results.csv");
    ok(@{ $t->{rows} } > 0, "$name capacity: rows");
    for my $r (@{ $t->{rows} }) {
        is($r->{mode}, 'capacity', "$name capacity hop $r->{hop} $r->{to}: mode column");
        is($r->{lost}, 0, "$name capacity hop $r->{hop} $r->{to}: nothing lost");
        is($r->{hwm_bound}, 0, "$name capacity hop $r->{hop} $r->{to}: not HWM-bound");
    }
    my $meta = decode_json(Hopbench::slurp("$out/metadata.json"));
    is($meta->{mode}, 'capacity', "$name capacity: metadata names the mode");

    # flood: hwm_bound is 1 exactly where a dropping hop runs at the bound
    $out = tmp();
    ($rc, $stdout, $err) = hopbench('run', $file, '--sizes', "$least{$file},65536",
        qw(--duration 0.2 --set mode=flood), @quick, '--output', $out);
    is($rc, 0, "$name flood: exit 0") or diag $err;
    $t = csv("$out/results.csv");
    $meta = decode_json(Hopbench::slurp("$out/metadata.json"));
    my $tsc = $meta->{tsc_hz};
    ok($tsc > 1e8, "$name flood: metadata has the TSC rate ($meta->{tsc_source})");
    my $config = Hopbench::slurp("$out/config.cfg");
    my ($hwm) = $config =~ /^    hwm = "(\d+)"/m;
    for my $r (@{ $t->{rows} }) {
        my $what = "$name flood size $r->{size} hop $r->{hop} $r->{to}";
        is($r->{mode}, 'flood', "$what: mode column");
        my $b = bound($r->{transport}, $hwm, $tsc);
        my $expect = $hwm > 0 && $r->{lost} > 0
            && $r->{msgs_per_sec} >= 0.75 * $b && $r->{msgs_per_sec} <= 1.1 * $b ? 1 : 0;
        is($r->{hwm_bound}, $expect, "$what: hwm_bound $expect (bound $b)");
        # over tcp and ipc 64 KiB is bound by its bytes (inproc passes a
        # pointer, so there the HWM can still be what sets the rate)
        is($r->{hwm_bound}, 0, "$what: 64 KiB over $r->{transport} is not HWM-bound")
            if $r->{size} == 65536 && $r->{transport} ne 'inproc';
    }
    like($stdout, qr/\(pubsub, flood\)/, "$name flood: the table names the mode");
    like($stdout, qr/HWM: this rate is set by the HWM/, "$name flood: the HWM line")
        if grep { $_->{hwm_bound} } @{ $t->{rows} };

    # search: a passing and a failing trial, a rate, a bottleneck.  With
    # a partial drop rate of 1 %: on a shared machine a 0.2 s window with
    # not one message lost can fail at any rate (NDR is the selftest's)
    $out = tmp();
    ($rc, $stdout, $err) = hopbench('run', $file, qw(--sizes 1024 --set mode=search
        --set search_trial=0.15 --set search_confirm=0.2 --set search_trials=6
        --set loss_ratio=0.01),
        @quick, '--output', $out);
    is($rc, 0, "$name search: exit 0") or diag $err;
    my $s = csv("$out/search.csv");
    my %verdicts = map { $_->{pass} => 1 } @{ $s->{rows} };
    ok($verdicts{1}, "$name search: a passing trial");
    # a failing trial, unless the pipeline carried all the publishers
    # could send (a slow build's publishers under a proxy with HWM 10000):
    # then the search must say so, and every trial was flat out
    $t = csv("$out/results.csv");
    if ($stdout =~ /bottleneck the publishers \(they sent flat out(?: and nothing was lost|; a hop lost ([\d.e+-]+) %, within loss_ratio)\)/) {
        # what it says of the loss is the confirmed rows' figures
        my $said = $1 // 0;
        my $worst = 0;
        for (@{ $t->{rows} }) {
            my $share = $_->{sent} ? 100 * ($_->{sent} - $_->{received}) / $_->{sent} : 0;
            $worst = $share if $share > $worst;
        }
        ok(abs($said - $worst) <= 0.005 * $worst + 1e-9,
           "$name search: the loss it names ($said %) is the confirmed rows' ($worst %)");
        ok(!$verdicts{0}, "$name search: the publishers were the limit, no trial failed");
        ok(!grep({ $_->{phase} eq 'step' } @{ $s->{rows} }),
           "$name search: ...so it bisected nothing");
    } else {
        ok($verdicts{0}, "$name search: a failing trial");
    }
    my ($found) = $stdout =~ /search: ([\d,]+) msgs\/s offered/;
    ok($found, "$name search: a rate found") or diag $stdout;
    like($stdout, qr/bottleneck (hop \d+ \(\S+ -> \S+\)|the publishers)/,
         "$name search: the bottleneck named");
    ok(@{ $t->{rows} } && !grep({ $_->{mode} ne 'search' } @{ $t->{rows} }),
       "$name search: results.csv has the confirmed rows, mode search");
    my @passing = grep { $_->{pass} == 1 && $_->{phase} eq 'confirm' } @{ $s->{rows} };
    ok(@passing, "$name search: the found rate was confirmed");
}

# Each hop's rate is its own count over its own time: on lossless hops of
# a capacity run what a hop was sent and what it delivered per second
# agree (they differ by what its queues hold at the two edges)
my @ratios;
for my $file (qw(topologies/proxy.cfg topologies/chain3.cfg topologies/direct.cfg)) {
    my $out = tmp();
    my ($rc, undef, $err) = hopbench('run', $file, '--sizes', '64,1024',
        qw(--duration 1 --repeat 2), @quick, '--output', $out);
    is($rc, 0, "$file: exit 0") or diag $err;
    push @ratios, map { abs($_->{msgs_per_sec} / $_->{sent_per_sec} - 1) }
        @{ csv("$out/results.csv")->{rows} };
}
my @sorted = sort { $a <=> $b } @ratios;
my $median = $sorted[ int(@sorted / 2) ];
ok(@sorted >= 20, 'rate agreement: ' . scalar(@sorted) . ' rows');
ok($median <= 0.02, sprintf 'rate agreement: median |msgs/sent - 1| %.4f <= 0.02', $median);
ok($sorted[-1] <= 0.10, sprintf 'rate agreement: worst %.4f <= 0.10', $sorted[-1]);

# nodrop is no longer a key; flood and search are pubsub's; zproxy has no
# back-pressure; search chooses its own rates
my $bad = tmp() . '/x.cfg';
write_file($bad, "topology = x\n    nodrop = true\npublisher = pub\nhop\nsubscriber = sub\n");
my ($rc, undef, $err) = hopbench('check', $bad);
is($rc, 2, 'nodrop: exit 2');
like($err, qr/x\.cfg:2: nodrop is gone: mode = capacity/, 'nodrop: points at mode');
($rc, undef, $err) = hopbench(qw(check topologies/pushpull.cfg --set mode=flood));
is($rc, 2, 'mode=flood on pushpull: exit 2');
like($err, qr/mode = flood is for pubsub/, 'mode=flood on pushpull: says why');
($rc, undef, $err) = hopbench(qw(check topologies/proxy.cfg --set engine=zproxy));
is($rc, 2, 'zproxy in capacity mode: exit 2');
like($err, qr/engine zproxy cannot carry back-pressure.*mode = flood/, 'zproxy: says why');
($rc) = hopbench(qw(check topologies/proxy.cfg --set engine=zproxy --set mode=flood));
is($rc, 0, 'zproxy in flood mode: accepted');
($rc) = hopbench(qw(check topologies/proxy.cfg --set engine=zproxy --set mode=search));
is($rc, 0, 'zproxy in search mode: accepted (it drops at the HWM, as flood)');
($rc, undef, $err) = hopbench(qw(check topologies/proxy.cfg --set mode=search --set rate=1000));
is($rc, 2, 'search with a rate: exit 2');
like($err, qr/search chooses the rates/, 'search with a rate: says why');
done_testing();
