#!/usr/bin/perl
# hopbench size: the cheapest measured deployment that meets a target, and
# latency_at's rows.  Verdicts that depend on this noisy machine are
# checked against the rule (inconclusive only when starved), not a value.
use strict;
use warnings;
use lib 'tests/lib';
use Hopbench;
use JSON::PP;
use Test::More;
use Time::HiRes qw(time sleep);

# Every criterion's trials short: its evidence comes fast, and thin (on a
# busy machine most verdicts are then the machine's, which the rule allows)
my @short = ('--sizes', '1024', '--set', 'search_trial=0.2', '--set', 'size_window=0.1',
             '--set', 'size_goal_seconds=0.6', '--set', 'size_budget=3', '--prove', '1',
             '--quiet');
my @try = ('--try', 'engine=steerable,forwarder');

# A sizing run's exit by the rule: 0 when every size has an answer (a row
# that meets, proven); else 3 when a size's candidates all fail, decided
# (never on starved evidence), or 4 when one is undecided or inconclusive
# A plain "fails on" must rest on trials the machine did not starve: p99
# on windows not all starved, loss on unstarved seconds that lost.  (The
# row's starved says some trial starved, the capacity's flat-out ones
# often: that alone decides nothing.)
sub s_fails_on_starved {
    my ($row) = @_;
    return 0 unless $row->{verdict} =~ /^fails on /;
    if ($row->{decided_by} eq 'p99') {
        my ($k) = $row->{why} =~ /, (\d+) starved\)/;
        return !defined $k || $k >= $row->{p99_windows};
    }
    return $row->{loss_bad_seconds} <= 0 if $row->{decided_by} eq 'loss';
    return 0;
}

sub by_the_rule {
    my ($rc, $dir) = @_;
    my @rows = @{ csv("$dir/sizing.csv")->{rows} };
    return 0 if grep { s_fails_on_starved($_) } @rows;
    my %sizes = map { $_->{size} => 1 } @rows;
    my $want = 0;
    for my $size (keys %sizes) {
        my @of = grep { $_->{size} == $size } @rows;
        next if grep { $_->{answer} == 1 } @of;
        return $rc == 3 unless grep { $_->{verdict} =~ /^(undecided|inconclusive)/ } @of;
        $want = 4;
    }
    return $rc == $want;
}

# A relaxed target, two files: proxy.cfg, and the same with its broker
# pinned to CPU 1 (cpus = 1).  Both measured (--all): the cheapest that
# meets is the answer, proven at the rate
my $out = tmp();
my $pinned = "$out/pinned.cfg";
(my $text = Hopbench::slurp('topologies/proxy.cfg')) =~ s/^proxy = broker\n/proxy = broker\n    cpus = 1\n/m;
Hopbench::write_file($pinned, $text =~ s/^topology = proxy$/topology = pinned/mr);
my ($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', $pinned, @short,
    '--target', 'rate=2000,p99=1s', '--all', '--output', "$out/a");
my $sizing = csv("$out/a/sizing.csv");
is(scalar @{ $sizing->{rows} }, 2, 'sizing.csv: a row per candidate and size');
ok(by_the_rule($rc, "$out/a"), "a target this machine carries: exit $rc, by the rule") or diag $stderr;
my ($met) = grep { $_->{answer} == 1 } @{ $sizing->{rows} };
SKIP: {
    skip 'the machine was too busy: no candidate was proven', 6 unless $met;
    is($rc, 0, 'an answer: exit 0');
    like($stdout, qr/^answer at 1024 B: \S+ \(candidate $met->{candidate}\) meets the target, proven\n  cost +\d+ cores? \(brokers busy [\d.]+ cores at 2400 msgs\/s, rounded up per broker; load generators on \d+ CPUs, not counted\)\n  capacity +\d+ \[\d+, \d+\] msgs\/s flat out over \d+ trials\n  loss +at most 0 in [\d.]+ of [\d.]+ trial-seconds at 2400 msgs\/s.*\n  p99 +[\d.]+ \[[\d.]+, [\d.]+\] us at 2000 msgs\/s over \d+ windows\n  proof +1\.\d s at 2000 msgs\/s: lost 0 at worst, p99 [\d.]+ \[[\d.]+, [\d.]+\] us$/m,
         'the answer comes first: cost, capacity, loss, p99, each with its interval or trial-seconds, and its proof')
        or diag $stdout;
    ok($met->{p99_windows} >= 10 && $met->{p99_low_us} <= $met->{p99_us}
       && $met->{p99_us} <= $met->{p99_high_us} && $met->{p99_high_us} <= 1e6,
       "its p99 from 10 windows or more, its interval within the bound ($met->{p99_low_us} .. $met->{p99_high_us} us)");
    ok($met->{loss_good_seconds} >= 0.48 - 1e-9 && $met->{capacity_trials} >= 3
       && $met->{capacity_low} <= $met->{capacity_per_sec},
       'loss decided by its trial-seconds, capacity by 3 trials or more');
    ok($met->{proof_seconds} >= 0.9 && $met->{proof_loss} == 0 && $met->{proof_p99_us} > 0,
       'proven: a second of trials at the rate, nothing lost')
        or diag explain $met;
    is($met->{decided_by}, '', 'a meets is decided by no single criterion');
}
# cost: what the deployment takes, the same pinned or not
my %cost = map { $_->{topology} => $_ } @{ $sizing->{rows} };
ok(!grep({ $_->{cost} ne '' && ($_->{cost} < 1 || $_->{cost} > 2) } values %cost),
   "cost within the host's 2 CPUs, pinned (" . ($cost{pinned}{cost} || '-') . ') or not ('
   . ($cost{proxy}{cost} || '-') . ')');
is($cost{pinned}{broker_cpus}, 1, 'the pinned broker reserves its 1 CPU');
is($cost{proxy}{cost_unit}, 'cores', 'cost in cores');
ok(-s "$out/a/results.csv" && -s "$out/a/latency.csv",
   'every trial in results.csv and latency.csv');
# (a proof ran for every candidate that met the criteria, also one whose
# proof a busy machine then failed: proof_seconds says it ran)
my $proved = grep { $_->{proof_seconds} ne '' && $_->{proof_seconds} > 0 } @{ $sizing->{rows} };
is(join(',', sort { $a cmp $b } keys %{ { map { $_->{sweep_criterion} => 1 } @{ csv("$out/a/results.csv")->{rows} } } }),
   join(',', sort { $a cmp $b } grep { defined } 'capacity', 'loss', 'p99', ($proved ? 'proof' : undef)),
   "results.csv: each trial's criterion") if grep { $_->{verdict} ne 'fails on capacity' } @{ $sizing->{rows} };
# the report page: the answer first, the candidate that meets as sizing.csv has it
($rc, undef, $stderr) = hopbench('report', "$out/a");
is($rc, 0, 'report of a sizing run: exit 0') or diag $stderr;
my $page = Hopbench::slurp("$out/a/report.html");
# (each figure a cell of sizing.csv: <span ... data-c="COLUMN">VALUE</span>)
my $cell = sub { my ($c, $v) = @_; qr{<span[^>]*data-c="$c">\Q$v\E</span>} };
like($page, qr{<b>answer at ${\ $cell->('size', 1024)} B:</b> ${\ $cell->('topology', $met->{topology})} <span[^>]*data-c="try">[^<]*</span> \(candidate ${\ $cell->('candidate', $met->{candidate})}\): ${\ $cell->('verdict', 'meets')}.*?<tr><th>cost</th><td>${\ $cell->('cost', $met->{cost})} }s,
     'report: the answer line names the candidate proven, and its cost')
    if $met;
ok(index($page, 'id="summary"') >= 0 && index($page, 'id="summary"') < index($page, 'id="sizing"'),
   'report: the answer before the candidates');
unlike($page, qr/config\.cfg: No such file/, 'report: no error box for the files a sizing run has not');
# metadata.json as run writes it: the page's machine section
my $meta = Hopbench::slurp("$out/a/metadata.json");
like($meta, qr/"mode": "size"/, 'metadata.json: mode size');
like($meta, qr/"status": "(ok|stalled)"/, 'metadata.json: status ok at the end');
like($meta, qr/"command_line": "[^"]*hopbench size topologies\/proxy\.cfg/, 'metadata.json: the command line');
like($page, qr/<th>libzmq<\/th><td>\d+\.\d+\.\d+<\/td>/, 'report: the machine section, with libzmq\'s version');

# Impossible: capacity fails it (3 flat-out trials each), exit 3, the best
# and its shortfall; starved, inconclusive and 4
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=1e9', @try, '--output', "$out/b");
ok(by_the_rule($rc, "$out/b"), "rate 1e9: exit $rc, by the rule") or diag $stderr;
like($stdout, qr/^answer at 1024 B: (no candidate meets the target; the best|undecided: .*; the nearest), proxy engine=\S+ \(candidate \d\), (fails on capacity|inconclusive: the machine): carried \d+ msgs\/s flat out \[-?\d+, \d+\] over \d+ trials, against the 1200000000 needed/m,
     'the best named with its shortfall and its interval');
like($stdout, qr/bottleneck hop \d/, '...and its bottleneck hop');
hopbench('report', "$out/b");
like(Hopbench::slurp("$out/b/report.html"), qr{<b>answer at <span[^>]*data-c="size">1024</span> B:</b> (no candidate meets the target; the best|undecided: no candidate was proven to meet the target; the nearest), <span[^>]*data-c="topology">proxy</span>},
     'report: none meets, said as the answer (as size says it), the best or nearest named');
my @b = @{ csv("$out/b/sizing.csv")->{rows} };
ok(!grep({ $_->{capacity_trials} < 3 || $_->{decided_by} ne 'capacity' } @b),
   'capacity decided it, on 3 trials or more each');
is(scalar @{ csv("$out/b/latency.csv")->{rows} }, 0, '...and no rate trial ran');
like($stdout, qr/^target: 1000000000 msgs\/s offered by the publishers together, p99 any, loss <= 0, carried at 1200000000 msgs\/s \(headroom 0\.2\)$/m,
     'the target line: p99 any when none was given');

# sockets = N: the rate offered reaches every SUB socket, and the table
# says what that delivers
unlike($stdout, qr/^delivered:/m, 'one SUB socket: no delivered line');
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--set', 'sub.sockets=3', '--target', 'rate=1e9', '--output', "$out/s");
like($stdout, qr/^delivered: 3 subscriber sockets \(candidate #1\) each take what they subscribe to: up to 1000000000 x 3 = 3000000000 msgs\/s delivered$/m,
     'sockets = 3: the delivered rate is the rate times the sockets, said');
is(csv("$out/s/sizing.csv")->{rows}[0]{sockets}, 3, 'sizing.csv: its sockets');

# Only p99 fails: the verdict names p99 (or the machine, if starved), with
# its interval and windows
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=1000,p99=1ns', '--output', "$out/c");
ok(by_the_rule($rc, "$out/c"), "p99 = 1 ns: exit $rc, by the rule");
my ($row) = @{ csv("$out/c/sizing.csv")->{rows} };
ok($row->{verdict} eq 'fails on p99' || $row->{verdict} =~ /^(inconclusive: the machine|undecided)$/,
   "p99's verdict, by the rule: $row->{verdict} ($row->{decided_by})");
like($row->{why}, qr/p99 [\d.]+ us \[-?[\d.]+, [\d.]+\] at 1000 msgs\/s over \d+ windows \([\d.]+ trial-seconds, \d+ starved\), against 0\.0 us/,
     'with its measured p99, interval and windows')
    if $row->{decided_by} eq 'p99';

# A candidate that cannot run here: does not fit, the others go on
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=2000,p99=1s', '--try', 'placement=spread,none',
    '--output', "$out/d");
ok(by_the_rule($rc, "$out/d"), "spread on one node does not end the run: exit $rc") or diag $stderr;
like($stdout, qr/placement=spread .*does not fit\n +\S/, 'listed: does not fit, why under it');

# Bad input: exit 2, naming it
for my $case (['rate=2000,speed=1', qr/unknown key 'speed'/],
              ['rate=0', qr/rate=0/], ['rate=-1', qr/rate=-1/],
              ['rate=1,p99=abc', qr/p99=abc/],
              ['rate=1,headroom=-0.5', qr/headroom=-0.5/]) {
    ($rc, undef, $stderr) = hopbench('size', 'topologies/proxy.cfg',
        '--target', $case->[0]);
    is($rc, 2, "--target $case->[0]: exit 2");
    like($stderr, $case->[1], '...naming it');
}
for my $case (['sizes=64,128', qr/sizes cannot vary/],
              ['engine=', qr/--try engine=/],
              ['colour=red', qr/unknown key 'colour'/],
              ['engine=warp', qr/warp/]) {
    ($rc, undef, $stderr) = hopbench('size', 'topologies/proxy.cfg',
        '--target', 'rate=1000', '--try', $case->[0], '--output', "$out/e");
    is($rc, 2, "--try $case->[0]: exit 2");
    like($stderr, $case->[1], '...naming it');
}

# --ndr and --format json, at two sizes: an answer per size; the same
# rows as sizing.csv, on stdout and in sizing.json (why, the file, the
# generators' CPUs, each answer); the chart of the candidates beside them.
# The NDR search confirms in 0.3 s, not 5: the run took 45 s on a busy
# machine, its long confirmations failing and backing off, and twice an
# answer came without its NDR
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--sizes', '64,1024', '--set', 'search_trials=3', '--set', 'search_confirm=0.3',
    '--target', 'rate=2000,p99=1s',
    '--try', 'engine=forwarder', '--ndr', '--format', 'json', '--output', "$out/j");
ok(by_the_rule($rc, "$out/j"), "--format json: exit $rc, by the rule") or diag $stderr;
my $json = eval { JSON::PP::decode_json($stdout) } // {};
my @rows = @{ csv("$out/j/sizing.csv")->{rows} };
is(join(' ', map { "$_->{candidate}:$_->{verdict}:$_->{why}:$_->{file}:$_->{generator_cpus}" } @{ $json->{candidates} // [] }),
   join(' ', map { "$_->{candidate}:$_->{verdict}:$_->{why}:$_->{file}:$_->{generator_cpus}" } @rows),
   '--format json: a candidate per sizing.csv row, same verdicts, why, file and CPUs');
is(join(' ', map { $_->{size} } @{ $json->{answers} // [] }), '64 1024', '--format json: an answer per size');
for my $a (@{ $json->{answers} // [] }) {
    my ($r) = grep { $_->{size} == $a->{size} && $_->{answer} == 1 } @rows;
    is($a->{candidate}, $r ? $r->{candidate} : undef, "size $a->{size}: its answer as sizing.csv's");
    ok(!$r || $r->{ndr_per_sec} > 0, "--ndr: the answer at $a->{size} B has its NDR")
        or diag "ndr_per_sec $r->{ndr_per_sec}; $stderr";
}
is($json->{target}{rate}, 2000, '--format json: the target');
ok(-s "$out/j/sizing.json", '--format json: sizing.json written too');
SKIP: {
    skip 'no gnuplot', 2 unless system('command -v gnuplot >/dev/null') == 0;
    ok(-s "$out/j/sizing.png", 'the candidates\' chart, sizing.png');
    like(Hopbench::slurp("$out/j/plot.gp"), qr/index 3 using 1:2 with points pt 5 .*title "the answer"/,
         'the chart: each verdict its own point type, the answer on top');
}

# compare of two sizing runs: candidate by candidate, no significance
($rc, $stdout, $stderr) = hopbench('compare', "$out/b", "$out/j");
is($rc, 0, 'compare of two sizing runs: exit 0') or diag $stderr;
like($stdout, qr/^sizing: A = \Q$out\E\/b\n/m, 'compare: says they are sizing runs');
like($stdout, qr/measured\s+once/, '...each candidate measured once: no significance');
like($stdout, qr/^ +capacity\/s +\d+ +\d+ +[-+][\d.]+%$/m, 'compare: capacity of both and its change');
like($stdout, qr/^  proxy engine=forwarder at 1024 B +verdict +\S/m,
     'compare: a candidate matched by topology, --try and size, its verdict first');
($rc, undef, $stderr) = hopbench('report', "$out/b", "$out/j", '-o', "$out/bj.html");
is($rc, 0, 'report of two sizing runs: exit 0') or diag $stderr;
my $bj = Hopbench::slurp("$out/bj.html");
like($bj, qr{<h3>B = \Q$out\E/j against A = \Q$out\E/b</h3>}, 'report: the sizing runs compared, B against A');
is(scalar(() = $bj =~ m{<tr><td>proxy engine=forwarder at 1024 B</td><td>verdict</td>}g), 1,
   'report: a verdict row per candidate matched, as compare prints them');
($rc, $stdout) = hopbench('compare', "$out/b", "$out/j", '--format', 'csv');
is($rc, 0, 'compare --format csv of sizing runs: exit 0');
like($stdout, qr/^candidate,figure,a,b,change\n(.*\n)*"proxy engine=forwarder at 1024 B",verdict,/,
     'compare --format csv: a row per candidate and figure');

# Ctrl-C while a candidate is measured: exit 130, the finished candidate
# kept in sizing.csv, the interrupted one "not tried" and why.  Two files
# of one cost: the first quick, the second's loss wanting 30 s
{
    (my $quick = Hopbench::slurp('topologies/proxy.cfg')) =~
        s/^(topology = proxy\n)/$1    search_trial = 0.2\n    size_window = 0.1\n    size_goal_seconds = 0.6\n    size_budget = 3\n/m;
    (my $slow = $quick) =~ s/size_goal_seconds = 0\.6\n    size_budget = 3/size_goal_seconds = 30\n    size_budget = 60\n    size_exceed_ratio = 0/;
    Hopbench::write_file("$out/quick.cfg", $quick);
    Hopbench::write_file("$out/slow.cfg", $slow =~ s/^topology = proxy$/topology = slow/mr);
    my $pid = fork();
    if ($pid == 0) {
        open STDOUT, '>', "$out/i.out";
        open STDERR, '>', "$out/i.err";
        exec './hopbench', 'size', "$out/quick.cfg", "$out/slow.cfg", '--sizes', '1024',
            '--target', 'rate=2000', '--all', '--prove', '1', '--output', "$out/i";
    }
    my $until = time + 60;
    sleep 0.1 until time > $until || Hopbench::slurp("$out/i.err") =~ /candidate 2 of 2/;
    sleep 0.5;
    kill 'INT', $pid;
    waitpid($pid, 0);
    is($? >> 8, 130, 'size interrupted: exit 130');
    my $err = Hopbench::slurp("$out/i.err");
    my ($bound) = $err =~ /candidate 1 of 2: \S+ at 1024 B \(0 s so far; 1 more to measure, at most ~(\d+) s\)/;
    ok(defined $bound && $bound >= 60, 'progress: the time so far and the most the rest take: '
       . "the budgets' upper bound (" . ($bound // '-') . ' s)') or diag $err;
    like($err, qr/candidate 2 of 2: \S+ at 1024 B \(\d+ s so far; 0 more to measure/, '...then the second');
    like(Hopbench::slurp("$out/i.out"), qr/^answer at 1024 B: interrupted before a candidate was proven to meet the target/m,
         'the answer says interrupted');
    like($err, qr/interrupted by SIGINT; what finished is in \Q$out\E\/i/, '...what finished, and where');
    my @i = @{ csv("$out/i/sizing.csv")->{rows} };
    is(scalar @i, 2, 'sizing.csv written on SIGINT: both candidates');
    ok($i[0]{verdict} ne 'not tried' && $i[0]{seconds} > 0, "the first measured: $i[0]{verdict}");
    ok($i[1]{verdict} eq 'not tried' && $i[1]{why} eq 'interrupted while it was measured',
       'the second: not tried, interrupted while it was measured');
    like(Hopbench::slurp("$out/i/metadata.json"), qr/"status": "interrupted"/, 'metadata.json: interrupted');
}

# --extrapolate: tests/38-size-extrapolate.t

# latency_at: a latency.csv row per fraction of the rate found
($rc, $stdout, $stderr) = hopbench('run', 'topologies/proxy.cfg', '--sizes', '1024',
    '--set', 'search_confirm=0.3', '--set', 'search_trial=0.2', '--quiet',
    '--set', 'mode=search', '--set', 'search_trials=3',
    '--set', 'latency_at=0.1,0.5,0.9', '--output', "$out/f");
is($rc, 0, 'a search with latency_at') or diag $stderr;
SKIP: {
    #  a search on a busy machine may find no rate: then latency_at has
    #  nothing to be a fraction of, and says so
    my ($found) = map { $_->{found} } @{ csv("$out/f/search_summary.csv")->{rows} };
    skip "the search found no rate on this machine (load: " . `cat /proc/loadavg` . ')', 3
        unless $found && $found > 0;
    my @at = grep { $_->{latency_at} ne '' && $_->{hop} eq 'e2e' }
        @{ csv("$out/f/latency.csv")->{rows} };
    is_deeply([map { $_->{latency_at} } @at], ['0.1', '0.5', '0.9'],
              'one e2e row per fraction');
    ok(!grep({ !($_->{found_per_sec} > 0 && $_->{p99_us} > 0) } @at),
       'each with the rate found and its p99');
    like($stdout, qr/latency at 50% of NDR/, 'and a table line');
}
($rc, undef, $stderr) = hopbench('compare', "$out/a", "$out/f");
is($rc, 2, 'compare of a sizing run with a run: exit 2');
like($stderr, qr/\Q$out\E\/a is a sizing run and \Q$out\E\/f is not/, '...saying which is which');

done_testing();
