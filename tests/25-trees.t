#!/usr/bin/perl
# Broker trees: the shipped trees checked, drawn and run in every mode,
# each link a row whose loss the subscribers' sequence numbers prove; a
# slow branch that loses alone in flood and holds the tree back in
# capacity; the keys and commands that must work on trees; the shapes
# refused; and every shipped linear topology giving the rows it gave
# before trees (tests/fixtures/linear-rows.txt, written by the hopbench
# before this change), and, with one topic taken by all, expected = sent.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();

# The rows of a run, by size: "hop from->to" in file order
sub links_of {
    my ($t, $size) = @_;
    return map { "$_->{hop} $_->{from}->$_->{to}" }
        grep { $_->{size} == $size && $_->{repeat} =~ /^\d+$/ } @{ $t->{rows} };
}

# (warm-up 0.05 s: what is checked here are rows and counts, which back-
# pressure and the drain make whole, not a rate that needs a settled
# pipeline; flat out, the default 0.2 s was half of a 0.2 s run's CPU)
sub run_csv {
    my ($name, @args) = @_;
    my $out = tmp();
    my ($rc, $stdout, $err) =
        hopbench('run', @args, qw(--set warmup=0.05 --format csv --quiet --output), $out);
    is($rc, 0, "$name: exit 0") or diag $err;
    return (csv("$out/results.csv"), $out, $stdout, $err);
}

# ------------------------------------------------------------------------
# check, and the drawing of what it understood
my ($rc, $out, $err) = hopbench(qw(check --verbose topologies/tree-fanout.cfg));
is($rc, 0, 'tree-fanout: check exit 0') or diag $err;
like($out, qr/^tree-fanout: 8 stages, 7 hops, sources first$/m, 'tree-fanout: its graph');
like($out, qr/^    \|-- hop 2 tcp --> eu \(proxy, steerable\)$/m, 'tree-fanout: core into eu, drawn');
like($out, qr/^        `-- hop 7 ipc --> ap-sub x2 \(subscriber\)$/m, 'tree-fanout: ap into its subscribers');
($rc, $out, $err) = hopbench(qw(check --verbose topologies/tree-fanin.cfg));
is($rc, 0, 'tree-fanin: check exit 0') or diag $err;
like($out, qr/^west x3 \(publisher\)\n`-- hop 1 ipc --> edge-west \(proxy, forwarder\)$/m,
     'tree-fanin: a branch from its publishers');
like($out, qr/^    `-- hop 4 tcp --> core \(above\)$/m, 'tree-fanin: the core drawn once');
($rc, $out) = hopbench(qw(plan topologies/tree-fanin.cfg));
like($out, qr/^tree-fanin: 6 stages, 5 hops/m, 'plan draws a tree');
($rc, $out) = hopbench(qw(plan topologies/chain3.cfg));
unlike($out, qr/sources first/, 'plan of a chain draws nothing more');

# ------------------------------------------------------------------------
# tree-fanout in capacity: a row per link, nothing lost, every message of
# the publisher at every subscriber
my ($t) = run_csv('tree-fanout', 'topologies/tree-fanout.cfg', '--sizes', '64,4096',
                  qw(--duration 0.5));
my @want = ('1 pub->core', '2 core->eu', '3 core->us', '4 core->ap',
            map { my ($h, $r) = @$_; map { "$h $r->$r-sub.$_" } 1, 2 }
                [5, 'eu'], [6, 'us'], [7, 'ap']);
for my $size (64, 4096) {
    is(join(', ', links_of($t, $size)), join(', ', @want), "tree-fanout $size: a row per link");
    my @rows = grep { $_->{size} == $size } @{ $t->{rows} };
    my ($pub) = grep { $_->{from} eq 'pub' } @rows;
    for my $r (@rows) {
        my $what = "tree-fanout $size $r->{from}->$r->{to}";
        ok($r->{received} > 0 && $r->{msgs_per_sec} > 0, "$what: received");
        is($r->{lost}, 0, "$what: lost 0");
        is($r->{received}, $pub->{sent}, "$what: every message the publisher sent");
        is($r->{seq_lost}, 0, "$what: the sequence numbers agree") if $r->{to} =~ /sub/;
    }
}

# tree-fanin: a row per publisher into the forwarder, one for the
# steerable edge's publishers, one for the core's two upstreams
my ($fanin) = run_csv('tree-fanin', qw(topologies/tree-fanin.cfg --sizes 1024 --duration 0.5));
is(join(', ', links_of($fanin, 1024)),
   '1 west.1->edge-west, 1 west.2->edge-west, 1 west.3->edge-west, 2 east.*->edge-east, '
   . '3 edge-west+edge-east->core, 5 core->sub', 'tree-fanin: rows per link, fan-ins summed');
my %r = map { ("$_->{from}->$_->{to}" => $_) } @{ $fanin->{rows} };
is($_->{lost}, 0, "tree-fanin $_->{from}->$_->{to}: lost 0") for values %r;
is($r{'edge-west+edge-east->core'}{transport}, 'tcp', 'tree-fanin: the core row is tcp');
my $west = 0;
$west += $r{"west.$_->edge-west"}{sent} for 1 .. 3;
is($r{'core->sub'}{received}, $west + $r{'east.*->edge-east'}{sent},
   'tree-fanin: sub got every message of the six publishers');
is($r{'core->sub'}{seq_lost}, 0, 'tree-fanin: and its sequence numbers agree');

# ------------------------------------------------------------------------
# A slow branch: hwm 10 on eu's subscribers, everything else deep.  Flood
# at a pace the rest keeps up with: only eu's rows lose, as their
# sequence numbers prove.  Capacity: nothing is lost, and every region
# gets what the slowest one takes.  (No stall check: eu's queues of 10
# messages on a busy machine leave its links next to nothing for half a
# second, a stall, twice: exit 1; stalls are tests/31-stalled.t's)
my @slow = qw(topologies/tree-fanout.cfg --sizes 1024 --duration 1 --set stall_ratio=0
              --set hwm=100000 --set hop5.hwm=10 --set rate=30000);
my ($flood) = run_csv('slow branch, flood', @slow, qw(--set mode=flood));
for my $r (@{ $flood->{rows} }) {
    my $what = "slow branch, flood $r->{from}->$r->{to}";
    if ($r->{from} eq 'eu') {
        ok($r->{lost} > 0, "$what: loses ($r->{lost})");
        is($r->{seq_lost}, $r->{lost}, "$what: as its sequence numbers prove");
    } else {
        is($r->{lost}, 0, "$what: loses nothing");
    }
}
# (capacity keeps the default hwm: 100,000-deep queues take longer than
# the timeout to drain at the slow branch's pace on a busy machine)
my ($cap) = run_csv('slow branch, capacity', @slow[0 .. 6], qw(--set hop5.hwm=10));
my ($pub) = grep { $_->{from} eq 'pub' } @{ $cap->{rows} };
for my $r (@{ $cap->{rows} }) {
    is($r->{lost}, 0, "slow branch, capacity $r->{from}->$r->{to}: lost 0");
    is($r->{received}, $pub->{sent}, "slow branch, capacity $r->{to}: all of it");
}

# flood flat out: every row says whether the HWM bound sets it
my ($hwm) = run_csv('tree-fanout flood', qw(topologies/tree-fanout.cfg --sizes 1024
                    --duration 0.5 --set mode=flood));
is(scalar(grep { defined $_->{hwm_bound} && $_->{hwm_bound} =~ /^[01]$/ } @{ $hwm->{rows} }),
   10, 'tree-fanout flood: hwm_bound on all 10 rows');
is(scalar(grep { $_->{hwm_bound} && !$_->{lost} } @{ $hwm->{rows} }), 0,
   'tree-fanout flood: only rows that dropped are HWM-bound');

# search: per link rows in search.csv, and the bottleneck named
my $dir = tmp();
($rc, $out, $err) = hopbench(qw(run topologies/tree-fanout.cfg --sizes 1024 --set mode=search
    --set search_trial=0.2 --set search_confirm=0.3 --set search_trials=4
    --set loss_ratio=0.01 --quiet), '--output', $dir);
is($rc, 0, 'tree-fanout search: exit 0') or diag $err;
my $search = csv("$dir/search.csv");
my %hops = map { ($_->{hop} => 1) } @{ $search->{rows} };
is(join(',', sort { $a <=> $b } keys %hops), '1,2,3,4,5,6,7', 'search.csv: rows for every link');
like($out, qr/search: [\d,]+ msgs\/s offered .*(bottleneck hop [1-7] \(\S+ -> \S+\)|publishers)/,
     'search on a tree: the rate found, and the link that failed first');

# ------------------------------------------------------------------------
# Other keys on trees: repeats, a swept link key, processes of their own,
# zones, CURVE per link
my ($rep, $rdir) = run_csv('repeat', qw(topologies/tree-fanout.cfg --sizes 64 --duration 0.3 --repeat 3));
is(scalar(grep { $_->{repeat} eq 'median' } @{ $rep->{rows} }), 10, 'repeat 3: a median row per link');
my (undef, $rdir2) = run_csv('repeat again', qw(topologies/tree-fanout.cfg --sizes 64 --duration 0.3 --repeat 3));
($rc, $out, $err) = hopbench('compare', $rdir, $rdir2);
is($rc, 0, 'compare two tree runs: exit 0') or diag $err;
is(scalar(() = $out =~ /^\s+64\s+\d\s+\S+ -> \S+\s+msgs\/s/mg), 10, 'compare: the 10 links matched');
my ($sw) = run_csv('sweep', qw(topologies/tree-fanout.cfg --sizes 64 --duration 0.3
                   --sweep), 'eu:eu-sub.hwm=100,1000');
is(join(',', sort { $a <=> $b } uniq(column_values($sw, 'sweep_eu_eu_sub_hwm'))), '100,1000',
   'a link swept by its stages, UP:DOWN.KEY');
my ($zp) = run_csv('zproxy core', qw(topologies/tree-fanin.cfg --sizes 1024 --duration 0.3
                   --set mode=flood --set rate=2000 --set hwm=1000 --set core.engine=zproxy));
is(join(', ', links_of($zp, 1024)),
   '1 west.1->edge-west, 1 west.2->edge-west, 1 west.3->edge-west, 2 east.*->edge-east, '
   . '3 edge-west+edge-east->core, 5 core->sub', 'a zproxy core: its fan-in one row too');
my ($own) = run_csv('process = own', qw(topologies/tree-fanout.cfg --sizes 64 --duration 0.3
                    --set core.process=own --set us.process=own));
is(scalar(grep { $_->{lost} == 0 } @{ $own->{rows} }), 10, 'process = own: 10 rows, nothing lost');
my ($zone) = run_csv('zones', qw(topologies/tree-fanin.cfg --sizes 64 --duration 0.3
                     --set edge-east.netns=east --set east.netns=east));
is(scalar(@{ $zone->{rows} }), 6, 'zones: the east branch in a zone of its own');
is(scalar(grep { $_->{lost} == 0 } @{ $zone->{rows} }), 6, 'zones: nothing lost');
my (undef, $cdir) = run_csv('curve', qw(topologies/tree-fanout.cfg --sizes 64 --duration 0.3
    --set hop2.curve=true --set hop3.curve=true --set hop4.curve=true));
like(Hopbench::slurp("$cdir/metadata.json"), qr/"curve":\s*"hop2 hop3 hop4"/,
     'curve on the core\'s three links');

sub uniq { my %s; grep { !$s{$_}++ } @_ }

# ------------------------------------------------------------------------
# Placement on a described 2-node machine: spread puts every link across
# nodes, split crosses once on every path
my %node;
sub plan_nodes {
    my ($policy) = @_;
    my ($rc, $out, $err) = hopbench(qw(plan topologies/tree-fanin.cfg --format csv
        --machine numa/xeon-e5-2680v4-2s.cfg --placement), $policy);
    is($rc, 0, "plan --placement $policy: exit 0") or diag $err;
    my %n;
    for (split /\n/, $out) {
        my ($stage, $role, $thread, $node) = split /,/;
        $stage =~ s/\.\d+$//;
        $n{$stage} = $node if $thread eq 'main';
    }
    return %n;
}
my @links = (['west', 'edge-west'], ['east', 'edge-east'], ['edge-west', 'core'],
             ['edge-east', 'core'], ['core', 'sub']);
%node = plan_nodes('spread');
for (@links) {
    isnt($node{ $_->[0] }, $node{ $_->[1] }, "spread: $_->[0] -> $_->[1] crosses");
}
%node = plan_nodes('split');
is(join(' ', map { $node{$_} } qw(west east edge-west edge-east core sub)),
   '0 0 0 0 1 1', 'split: publishers and edges on node 0, core and sub on node 1');
($rc, $out) = hopbench(qw(plan topologies/tree-fanin.cfg --machine numa/xeon-e5-2680v4-2s.cfg
                          --placement all));
is($rc, 0, 'plan --placement all on a tree: exit 0');
like($out, qr/^\s*1\s+0\+/m, 'placement all: the assignments of its stages');

# ------------------------------------------------------------------------
# Shapes refused, at their line
my $bad = tmp();
my $head = "topology = t\npublisher = a\nhop\nproxy = b\n";
my %refused = (
    'cycle' => ["${head}proxy = c\n    from = b,d\nproxy = d\n    from = c\nhop\nsubscriber = s\n",
                qr/t\.cfg:8: c -> d makes a cycle \(d -> c -> d\)/],
    'diamond' => ["${head}proxy = c\n    from = a\nproxy = d\n    from = b,c\nhop\nsubscriber = s\n",
                  qr/t\.cfg:8: c -> d makes a diamond: 'a' would reach 's' through both 'c' and 'b', so 's' would get every message of 'a' twice/],
    'unknown from' => ["${head}hop\nsubscriber = s\nsubscriber = t\n    from = nosuch\n",
                       qr/t\.cfg:8: from 'nosuch': no stage called 'nosuch'/],
    'tree of pushers' => ["topology = t\npusher = a\nhop\nproxy = b\nhop\npuller = c\npuller = d\n    from = b\n",
                          qr/t\.cfg:8: a pushpull pipeline is a chain/],
);
for my $name (sort keys %refused) {
    write_file("$bad/t.cfg", $refused{$name}[0]);
    my ($rc, undef, $err) = hopbench('check', "$bad/t.cfg");
    is($rc, 2, "$name: exit 2");
    like($err, $refused{$name}[1], "$name: names its line and why");
}

# ------------------------------------------------------------------------
# Every shipped linear topology: the header it had, then only new
# columns; the same rows, in the same order
my (%fixture, $name);
for (split /\n/, Hopbench::slurp('tests/fixtures/linear-rows.txt')) {
    if (/^topology (\S+)/) { $name = $1; next }
    push @{ $fixture{$name}{rows} }, $1 if /^row (.*)$/;
    $fixture{$name}{header} = $1 if /^header (.*)$/;
}
for my $file (sort keys %fixture) {
    my $o = tmp();
    my ($rc, undef, $err) = hopbench('run', $file, '--sizes', '64,1024',
        qw(--duration 0.2 --set warmup=0.05 --quiet --format csv --output), $o);
    is($rc, 0, "$file: exit 0") or diag $err;
    my @lines = split /\n/, Hopbench::slurp("$o/results.csv");
    my $header = shift @lines // '';
    ok(index($header, $fixture{$file}{header}) == 0, "$file: the header it had, new columns after");
    my @rows = map { join ',', (split /,/)[2 .. 7] } @lines;
    is(join("\n", @rows), join("\n", @{ $fixture{$file}{rows} }), "$file: the rows it had");
    my @changed = grep { $_->{expected} ne $_->{sent} || $_->{selectivity} ne '1' }
        @{ csv("$o/results.csv")->{rows} };
    is(scalar @changed, 0, "$file: one topic, taken by all: expected = sent, selectivity 1");
}
done_testing();
