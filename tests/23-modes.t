#!/usr/bin/perl
# The modes of a pubsub run, on every shipped pubsub topology: capacity
# loses nothing, search finds a rate between a passing and a failing
# trial and names the bottleneck (make check searches a chain, a tree and
# topics; make check-long every topology); flood is tests/23-flood.t's,
# a file of its own so that make check runs the two side by side.  And
# every row of a trial is over one window.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Test::More;

chdir "$FindBin::Bin/..";
# stall_ratio = 0: a trial the machine stalled is tests/31-stalled.t's, not
# these modes' (under ASan on a busy machine many-subs can stall twice)
my @quick = qw(--set warmup=0.05 --set stall_ratio=0 --quiet);

# The shipped topologies whose pattern is pubsub
my @pubsub;
for my $file (sort(glob('topologies/*.cfg'), glob('topologies/*/*.cfg'))) {
    my ($rc, $out) = hopbench('check', $file);
    push @pubsub, $file if $rc == 0 && $out =~ /ok \(pubsub,/;
}
ok(@pubsub >= 6, 'six or more shipped pubsub topologies: ' . scalar @pubsub);
my %searched = map { ("topologies/$_.cfg" => 1) } qw(proxy tree-fanout topics);

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

    # search: a passing and a failing trial, a rate, a bottleneck.  With
    # a partial drop rate of 1 %: on a shared machine a 0.2 s window with
    # not one message lost can fail at any rate (NDR is the selftest's)
    next unless $searched{$file} || long();
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

# Every counter is taken at the window's two edges, the same two instants
# for every link (trial_edge.c): each row of a trial has one window, and
# on lossless hops what a hop was sent and what it delivered per second
# differ only by what its queues held more at the end than at the start.
# A tcp hop's kernel buffers hold megabytes (tens of thousands of small
# messages) and fill or empty as the scheduler pleases: its rows are not
# held to it (tests/28-windows.t says more)
# A row that disagrees by more than 2 % while a stage of it waited for a
# CPU (starved) says what the machine did to its queues in the window:
# that run is made again, up to three times; one not starved fails it
my @ratios;
for my $file (qw(topologies/proxy.cfg topologies/chain3.cfg topologies/direct.cfg)) {
    my ($rc, $err, %windows, @mine);
    for my $attempt (1 .. 3) {
        my $out = tmp();
        ($rc, undef, $err) = hopbench('run', $file, '--sizes', '64,1024',
            qw(--duration 1 --repeat), long() ? 2 : 1, @quick, '--output', $out);
        (%windows, @mine) = ();
        my $starved = 0;
        for my $row (@{ csv("$out/results.csv")->{rows} }) {
            next if $row->{repeat} !~ /^\d+$/;
            $windows{"$row->{size} $row->{repeat}"}{ $row->{seconds} } = 1;
            next if $row->{transport} eq 'tcp';
            my $ratio = abs($row->{msgs_per_sec} / $row->{sent_per_sec} - 1);
            push @mine, $ratio;
            $starved ||= $ratio > 0.02 && $row->{starved} > 0;
        }
        last if $rc != 0 || !$starved;
        note("$file: a starved row disagreed by more than 2 %, attempt $attempt");
    }
    push @ratios, @mine;
    is($rc, 0, "$file: exit 0") or diag $err;
    ok(!grep({ keys %$_ != 1 } values %windows),
       "$file: every row of a trial has the same window");
}
my @sorted = sort { $a <=> $b } @ratios;
ok(@sorted >= 4, 'rate agreement: ' . scalar(@sorted) . ' rows');
ok(($sorted[-1] // 1) <= 0.02, sprintf 'rate agreement: worst |msgs/sent - 1| %.4f <= 0.02',
   $sorted[-1] // 1);

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
