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

my @short = ('--sizes', '1024', '--set', 'search_confirm=0.3',
             '--set', 'search_trial=0.2', '--quiet');
my @try = ('--try', 'engine=steerable,forwarder');

# A sizing run's exit by the rule: 0 when one met; on a machine too busy
# to carry even a relaxed target, 3 with every measured candidate
# inconclusive (a starved failure is the machine's, never the deployment's)
sub by_the_rule {
    my ($rc, $dir) = @_;
    my @rows = @{ csv("$dir/sizing.csv")->{rows} };
    return $rc == 0 if grep { $_->{verdict} eq 'meets' } @rows;
    return $rc == 3 && !grep { $_->{verdict} !~ /^(inconclusive: the machine|does not fit|not tried)/
                               || $_->{verdict} =~ /^inconclusive/ && $_->{starved} != 1 } @rows;
}

# A relaxed target: the cheapest candidate meets it
my $out = tmp();
my ($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=2000,p99=1s', @try, '--output', "$out/a");
my $sizing = csv("$out/a/sizing.csv");
is(scalar @{ $sizing->{rows} }, 2, 'sizing.csv: a row per candidate and size');
my ($met) = grep { $_->{verdict} eq 'meets' } @{ $sizing->{rows} };
# A machine too busy to carry even this (a failure in a starved trial) is
# inconclusive, never a fail of the deployment, and exit 3
ok($met ? $rc == 0
        : $rc == 3 && !grep({ $_->{verdict} ne 'inconclusive: the machine' || $_->{starved} != 1 }
                            @{ $sizing->{rows} }),
   'a target this machine carries: exit 0 (or, starved, inconclusive and 3)') or diag $stderr;
SKIP: {
    skip 'the machine was too busy: no candidate met', 2 unless $met;
    like($stdout, qr/^answer: proxy engine=\S+ at 1024 B: cost \S+ .*confirmed 2400 msgs\/s, p99 \S+ us at 2000 msgs\/s, brokers busy \S+ cores/m,
         'the answer line comes first, with cost, rate, p99 and busy cores');
    ok($met->{cost} > 0 && $met->{capacity_per_sec} >= 2400
       && $met->{confirmed_per_sec} == 2400 && $met->{p99_us} > 0,
       'the one that meets has cost, capacity, confirmed rate and p99');
}
ok(-s "$out/a/results.csv" && -s "$out/a/latency.csv",
   'every trial in results.csv and latency.csv');
# the report page: the answer first, the candidate that meets as sizing.csv has it
($rc, undef, $stderr) = hopbench('report', "$out/a");
is($rc, 0, 'report of a sizing run: exit 0') or diag $stderr;
my $page = Hopbench::slurp("$out/a/report.html");
like($page, qr{<p class="answer"><b>answer:</b> candidate \Q$met->{candidate}\E meets the target: proxy \Q$met->{try}\E at 1024 B, cost \Q$met->{cost}\E</p>}s,
     'report: the answer line names the candidate that meets')
    if $met;
ok(index($page, '<p class="answer">') < index($page, 'id="sizing"'), 'report: the answer before the candidates');
unlike($page, qr/config\.cfg: No such file/, 'report: no error box for the files a sizing run has not');
# metadata.json as run writes it: the page's machine section
my $meta = Hopbench::slurp("$out/a/metadata.json");
like($meta, qr/"mode": "size"/, 'metadata.json: mode size');
like($meta, qr/"status": "ok"/, 'metadata.json: status ok at the end');
like($meta, qr/"command_line": "[^"]*hopbench size topologies\/proxy\.cfg/, 'metadata.json: the command line');
like($page, qr/<th>libzmq<\/th><td>\d+\.\d+\.\d+<\/td>/, 'report: the machine section, with libzmq\'s version');

# The answer holds: the candidate that met, run at the target rate for
# 10 s, loses nothing (loss = 0) and its p99 is within the bound (1 s)
SKIP: {
    skip 'no candidate met', 3 unless $met;
    my ($engine) = $met->{try} =~ /engine=(\S+)/;
    ($rc, undef, $stderr) = hopbench('run', 'topologies/proxy.cfg', '--sizes', '1024',
        '--set', "engine=$engine", '--set', 'rate=2000', '--duration', '10',
        '--quiet', '--output', "$out/held");
    is($rc, 0, "the answer, $met->{try}, run at 2000 msgs/s for 10 s") or diag $stderr;
    # (a hop that lost while a stage waited for a CPU: the machine's)
    my @held = @{ csv("$out/held/results.csv")->{rows} };
    ok(@held == 2 && !grep({ ($_->{lost} != 0 || $_->{received} < 19000) && $_->{starved} != 1 } @held),
       'the answer holds: no hop lost a message of the ~20,000 sent (' . join(', ', map { "lost $_->{lost}" . ($_->{starved} == 1 ? ' starved' : '') } @held) . ')');
    my ($e2e) = grep { $_->{hop} eq 'e2e' } @{ csv("$out/held/latency.csv")->{rows} };
    ok($e2e && $e2e->{p99_us} > 0 && ($e2e->{p99_us} <= 1e6 || grep { $_->{starved} == 1 } @held),
       'the answer holds: p99 end to end within 1 s (' . ($e2e ? $e2e->{p99_us} : '-') . ' us)');
}

# The two engines cost the same: both are measured, each with its wall
# time in sizing.csv, and the answer is the first that met
ok(!grep({ !($_->{seconds} > 0) || $_->{verdict} eq 'not tried' } @{ $sizing->{rows} }),
   'same cost: both candidates measured, each with its seconds');
like($stdout, qr/^answer: proxy \Q$met->{try}\E at/m, 'the answer: the first in the order given that met')
    if $met;
# One that costs more than one that met is not tried (without --all), and
# says why; it has no seconds
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=2000,p99=1s', '--try', 'io_threads=1,2', '--output', "$out/k");
my @k = @{ csv("$out/k/sizing.csv")->{rows} };
ok($k[0]{verdict} eq 'meets'
   ? $k[1]{verdict} eq 'not tried' && $k[1]{why} =~ /^dearer than #1, which meets/
     && ($k[1]{seconds} // '') eq ''
   : $k[1]{verdict} ne 'not tried',
   "dearer than one that met: not tried, why, no seconds (#1 $k[0]{verdict})") or diag $stdout;

# Impossible: capacity fails it, fast, exit 3, the best and its shortfall
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=1e9', @try, '--output', "$out/b");
is($rc, 3, 'no candidate meets: exit 3') or diag $stderr;
like($stdout, qr/^answer: no candidate meets the target; the best, proxy .*(fails on capacity|inconclusive: the machine).*short of/m,
     'the best named with its shortfall');
like($stdout, qr/bottleneck hop \d/, '...and its bottleneck hop');
hopbench('report', "$out/b");
like(Hopbench::slurp("$out/b/report.html"), qr{<b>answer:</b> none of the 2 candidates meets the target},
     'report: none meets, said as the answer');
# fast: capacity decided it, so no rate trial ran (one capacity trial per
# candidate: 2 hops each in results.csv, nothing in latency.csv)
is(scalar @{ csv("$out/b/results.csv")->{rows} }, 4, 'capacity decided it: one trial per candidate');
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

# Only p99 fails: the verdict names p99 (or the machine, if starved)
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=1000,p99=1ns', '--output', "$out/c");
is($rc, 3, 'p99 = 1 ns: none meets');
my ($row) = @{ csv("$out/c/sizing.csv")->{rows} };
ok($row->{verdict} eq 'fails on p99'
   || ($row->{verdict} eq 'inconclusive: the machine' && $row->{starved} == 1
       && $row->{why} =~ /fails on p99/),
   "p99's verdict, by the rule: $row->{verdict}");
like($row->{why}, qr/p99 [\d.]+ us at 1000 msgs\/s/, 'with its measured p99');

# A candidate that cannot run here: does not fit, the others go on
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=2000,p99=1s', '--try', 'placement=spread,none',
    '--output', "$out/d");
ok(by_the_rule($rc, "$out/d"), "spread on one node does not end the run: exit $rc") or diag $stderr;
like($stdout, qr/placement=spread .*does not fit: /, 'listed: does not fit, why');

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
        '--target', 'rate=10', '--try', $case->[0], '--output', "$out/e");
    is($rc, 2, "--try $case->[0]: exit 2");
    like($stderr, $case->[1], '...naming it');
}

# --ndr: a candidate that meets is searched for its NDR too
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--set', 'search_trials=4', '--target', 'rate=2000,p99=1s',
    '--try', 'engine=forwarder', '--ndr', '--output', "$out/g");
my ($ndr) = @{ csv("$out/g/sizing.csv")->{rows} };
ok($ndr && ($ndr->{verdict} eq 'meets'
            ? $rc == 0 && $ndr->{ndr_per_sec} > 0
            : $rc == 3 && $ndr->{verdict} eq 'inconclusive: the machine' && $ndr->{starved} == 1
              && ($ndr->{ndr_per_sec} // '') eq ''),
   '--ndr: the candidate that meets has its NDR in sizing.csv (' . ($ndr->{ndr_per_sec} // '-')
   . '); starved and failing, it is inconclusive and has none (' . ($ndr ? $ndr->{verdict} : '-') . ')') or diag $stderr;

# --format json: the same rows as sizing.csv, on stdout and in
# sizing.json; the chart of the candidates beside them
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=2000,p99=1s', @try, '--format', 'json', '--output', "$out/j");
ok(by_the_rule($rc, "$out/j"), "--format json: exit $rc, by the rule") or diag $stderr;
my $json = eval { JSON::PP::decode_json($stdout) } // {};
my @rows = @{ csv("$out/j/sizing.csv")->{rows} };
is(join(' ', map { "$_->{candidate}:$_->{verdict}" } @{ $json->{candidates} // [] }),
   join(' ', map { "$_->{candidate}:$_->{verdict}" } @rows), '--format json: a candidate per sizing.csv row, same verdicts');
is($json->{target}{rate}, 2000, '--format json: the target');
ok(-s "$out/j/sizing.json", '--format json: sizing.json written too');
SKIP: {
    skip 'no gnuplot', 1 unless system('command -v gnuplot >/dev/null') == 0;
    ok(-s "$out/j/sizing.png", 'the candidates\' chart, sizing.png');
}

# compare of two sizing runs: candidate by candidate, no significance
($rc, $stdout, $stderr) = hopbench('compare', "$out/a", "$out/j");
is($rc, 0, 'compare of two sizing runs: exit 0') or diag $stderr;
like($stdout, qr/^sizing: A = \Q$out\E\/a\n/m, 'compare: says they are sizing runs');
like($stdout, qr/measured\s+once/, '...each candidate measured once: no significance');
for my $r (@rows) {
    like($stdout, qr/^  proxy \Q$r->{try}\E at 1024 B +verdict +\S/m,
         "compare: candidate $r->{try} matched, its verdict first");
}
like($stdout, qr/^ +capacity\/s +\d+ +\d+ +[-+][\d.]+%$/m, 'compare: capacity of both and its change');
($rc, undef, $stderr) = hopbench('report', "$out/a", "$out/j", '-o', "$out/aj.html");
is($rc, 0, 'report of two sizing runs: exit 0') or diag $stderr;
my $aj = Hopbench::slurp("$out/aj.html");
like($aj, qr{<h3>B = \Q$out\E/j against A = \Q$out\E/a</h3>}, 'report: the sizing runs compared, B against A');
is(scalar(() = $aj =~ m{<tr><td>proxy engine=\S+ at 1024 B</td><td>verdict</td>}g), 2,
   'report: a verdict row per candidate, as compare prints them');
($rc, $stdout) = hopbench('compare', "$out/a", "$out/b", '--format', 'csv');
is($rc, 0, 'compare --format csv of sizing runs: exit 0');
like($stdout, qr/^candidate,figure,a,b,change\n"proxy engine=\S+ at 1024 B",verdict,/,
     'compare --format csv: a row per candidate and figure');

# Ctrl-C while a candidate is measured: exit 130, the finished candidate
# kept in sizing.csv, the interrupted one "not tried" and why
{
    my $pid = fork();
    if ($pid == 0) {
        open STDOUT, '>', "$out/i.out";
        open STDERR, '>', "$out/i.err";
        exec './hopbench', 'size', 'topologies/proxy.cfg', '--sizes', '1024',
            '--set', 'search_confirm=30', '--set', 'search_trial=0.2',
            '--target', 'rate=2000', @try, '--all', '--output', "$out/i";
    }
    my $until = time + 60;
    sleep 0.1 until time > $until || Hopbench::slurp("$out/i.err") =~ /candidate 2 of 2/;
    sleep 0.5;
    kill 'INT', $pid;
    waitpid($pid, 0);
    is($? >> 8, 130, 'size interrupted: exit 130');
    my $err = Hopbench::slurp("$out/i.err");
    like($err, qr/candidate 2 of 2: .*\(\d+ s so far; 1 to go, at most ~\d+ s\)/,
         'progress: the time so far and the most the rest take');
    like($err, qr/interrupted by SIGINT; what finished is in \Q$out\E\/i/, '...what finished, and where');
    my @i = @{ csv("$out/i/sizing.csv")->{rows} };
    is(scalar @i, 2, 'sizing.csv written on SIGINT: both candidates');
    ok($i[0]{verdict} ne 'not tried' && $i[0]{seconds} > 0, "the first measured: $i[0]{verdict}");
    ok($i[1]{verdict} eq 'not tried' && $i[1]{why} eq 'interrupted while it was measured',
       'the second: not tried, interrupted while it was measured');
    like(Hopbench::slurp("$out/i/metadata.json"), qr/"status": "interrupted"/, 'metadata.json: interrupted');
}

# --extrapolate: the scalability law over a key's counts, said apart from
# the answer (never the answer)
($rc, $stdout, $stderr) = hopbench('size', 'topologies/proxy.cfg', @short,
    '--target', 'rate=1e8', '--try', 'pub.count=1,2,3', '--extrapolate',
    '--output', "$out/h");
is($rc, 3, '--extrapolate: none measured meets, exit 3') or diag $stderr;
like($stdout, qr/^extrapolated \(USL, pub\.count\): lambda \d+ msgs\/s, sigma [\d.]+, kappa [\d.]+; residuals 1:[-+]\d+ 2:[-+]\d+ 3:[-+]\d+$/m,
     '--extrapolate: the law fitted to the three counts, with its residuals');
like($stdout, qr/^extrapolated: (no pub\.count carries 120000000 msgs\/s|pub\.count = \d+ would carry)/m,
     '--extrapolate: what it predicts for the target');
like($stdout, qr/^answer: no candidate meets/m, '--extrapolate: the answer stays what was measured');

# latency_at: a latency.csv row per fraction of the rate found
($rc, $stdout, $stderr) = hopbench('run', 'topologies/proxy.cfg', @short,
    '--set', 'mode=search', '--set', 'search_trials=3',
    '--set', 'latency_at=0.1,0.5,0.9', '--output', "$out/f");
is($rc, 0, 'a search with latency_at') or diag $stderr;
my @at = grep { $_->{latency_at} ne '' && $_->{hop} eq 'e2e' }
    @{ csv("$out/f/latency.csv")->{rows} };
is_deeply([map { $_->{latency_at} } @at], ['0.1', '0.5', '0.9'],
          'one e2e row per fraction');
ok(!grep({ !($_->{found_per_sec} > 0 && $_->{p99_us} > 0) } @at),
   'each with the rate found and its p99');
like($stdout, qr/latency at 50% of NDR/, 'and a table line');
($rc, undef, $stderr) = hopbench('compare', "$out/a", "$out/f");
is($rc, 2, 'compare of a sizing run with a run: exit 2');
like($stderr, qr/\Q$out\E\/a is a sizing run and \Q$out\E\/f is not/, '...saying which is which');

done_testing();
