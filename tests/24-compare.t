#!/usr/bin/perl
# Repeats you can trust: median rows with their interval, repeat until
# precise, and hopbench compare (significance, one side only, --by, --plot).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();
my @quick = qw(--duration 0.1 --set warmup=0.05 --quiet);

sub median {
    my @v = sort { $a <=> $b } @_;
    return @v % 2 ? $v[@v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

# --- 5 repeats: 5 rows and one median row per hop and size ---
my $ra = tmp();
my ($rc, $stdout, $err) = hopbench(qw(run topologies/proxy.cfg --set transport=inproc),
    '--sizes', '64,4096', qw(--repeat 5 --format csv --output), $ra, @quick);
is($rc, 0, 'repeat 5: exit 0') or diag $err;
my $t = csv("$ra/results.csv");
my @columns = @{ $t->{columns} };
is(join(',', @columns[23 .. 29]), 'hwm_bound,from_host,to_host,ci_low,ci_high,ci_coverage,precise',
   'results.csv: the interval columns after hwm_bound');
like($stdout, qr/^proxy,pubsub,4096,median,2,/m, 'stdout csv: median rows too');
for my $size (64, 4096) {
    for my $hop (1, 2) {
        my @r = grep { $_->{size} == $size && $_->{hop} == $hop } @{ $t->{rows} };
        my @repeats = grep { $_->{repeat} =~ /^\d+$/ } @r;
        my ($m) = grep { $_->{repeat} eq 'median' } @r;
        my $what = "size $size hop $hop";
        is(scalar @repeats, 5, "$what: 5 repeat rows");
        ok($m, "$what: a median row") or next;
        is($r[-1]{repeat}, 'median', "$what: the median row comes after the repeats");
        ok(!grep({ $_->{ci_low} ne '' || $_->{ci_high} ne '' } @repeats),
           "$what: repeat rows leave ci_low, ci_high empty");
        ok($m->{ci_low} <= $m->{msgs_per_sec} && $m->{msgs_per_sec} <= $m->{ci_high},
           "$what: ci_low $m->{ci_low} <= median $m->{msgs_per_sec} <= ci_high $m->{ci_high}");
        my @rates = sort { $a <=> $b } map { $_->{msgs_per_sec} } @repeats;
        ok(abs($m->{msgs_per_sec} - median(@rates)) < 0.2, "$what: the median of the repeats");
        is($m->{ci_low} + 0, $rates[0] + 0, "$what: 5 repeats: the interval starts at the min");
        is($m->{ci_high} + 0, $rates[-1] + 0, "$what: ...and ends at the max");
        is($m->{ci_coverage}, '0.9375', "$what: whose coverage is 1 - 2/32");
        is($m->{precise} // '', '', "$what: precise empty without --precision");
        is($m->{lost}, $m->{sent} - $m->{received}, "$what: lost = sent - received");
        for my $col (qw(from_cpu to_cpu from_node to_node)) {
            my %seen = map { $_->{$col} => 1 } @repeats;
            my $want = keys %seen == 1 ? $repeats[0]{$col} : '-1';
            is($m->{$col}, $want, "$what: $col is the repeats' ($want)");
        }
    }
}
my $doc;
($rc, $stdout) = hopbench(qw(run topologies/proxy.cfg --set transport=inproc --sizes 64
    --repeat 3 --format json --output), tmp(), @quick);
$doc = eval { decode_json($stdout) };
my @medians = grep { $_->{repeat} eq 'median' } @{ $doc->{rows} // [] };
is(scalar @medians, 2, 'json: the median rows');
ok(!grep({ $_->{ci_low} !~ /^[\d.]+$/ } @medians), 'json: ci_low is a number');

# --- the table: median ±x %, and what too few repeats mean ---
($rc, $stdout) = hopbench(qw(run topologies/proxy.cfg --set transport=inproc --sizes 64
    --repeat 3 --output), tmp(), @quick);
like($stdout, qr/median of 3 repeats, ±: its 95% interval/, 'table: says what ± is');
like($stdout, qr/^\s+1\s+pub -> broker\s+inproc\s+[\d,]+\s+±[\d.]+%\*/m, 'table: median ±x %*');
like($stdout, qr/\*: 3 repeats give at most a 75\.0% interval: ± is then min to max, the farther of the two from the median; 95% needs 6/,
     'table: 3 repeats fall short of 95 %, and it says so');

# --- precision: between the fewest and max_repeat, and marked ---
my $p = tmp();
($rc, $stdout, $err) = hopbench(qw(run topologies/proxy.cfg --set transport=inproc),
    '--sizes', '64,1024', qw(--precision 0.0001 --max-repeat 4 --output), $p, @quick);
is($rc, 0, 'precision out of reach: exit 0') or diag $err;
$t = csv("$p/results.csv");
for my $size (64, 1024) {
    my @r = grep { $_->{size} == $size && $_->{hop} == 1 } @{ $t->{rows} };
    is(join(',', map { $_->{repeat} } @r), '1,2,3,4,median', "precision: size $size ran max_repeat 4");
    is($r[-1]{precise}, '0', "precision: size $size not reached: precise = 0");
}
like($stdout, qr/!: NOT PRECISE after 4 repeats \(max_repeat\): hop 1 ±[\d.]+% hop 2/,
     'precision: the table says which hops are not precise');
like($stdout, qr/±[\d.]+%\*!/, 'precision: and marks their rows');
$p = tmp();
($rc, $stdout, $err) = hopbench(qw(run topologies/proxy.cfg --set transport=inproc),
    '--sizes', '64,1024', qw(--precision 0.5 --set confidence=0.5 --max-repeat 5 --output), $p, @quick);
is($rc, 0, 'precision 0.5: exit 0') or diag $err;
$t = csv("$p/results.csv");
for my $size (64, 1024) {
    my @r = grep { $_->{size} == $size } @{ $t->{rows} };
    my @n = grep { $_->{repeat} =~ /^\d+$/ && $_->{hop} == 1 } @r;
    my @m = grep { $_->{repeat} eq 'median' } @r;
    ok(@n >= 3 && @n <= 5, "precision 0.5: size $size ran " . scalar(@n) . ' repeats, from 3 to 5');
    if (@n < 5) {
        ok(!grep({ $_->{precise} ne '1' } @m), "precision 0.5: size $size stopped early, every hop precise");
    } else {
        ok(1, "precision 0.5: size $size ran them all (precise: " . join(',', map { $_->{precise} } @m) . ')');
    }
}
($rc, undef, $err) = hopbench(qw(run topologies/proxy.cfg --set mode=search --precision 0.05));
is($rc, 2, 'precision with mode = search: exit 2');
like($err, qr/--set precision=0.05: mode = search runs its own trials/, 'precision with search: says why');
($rc, undef, $err) = hopbench(qw(run topologies/proxy.cfg --precision 0.05 --repeat 5 --max-repeat 4));
is($rc, 2, 'max_repeat below repeat: exit 2');
like($err, qr/max_repeat 4 is below the 5 repeats/, 'max_repeat below repeat: says so');

# --- latency: median rows of the percentiles ---
my $l = tmp();
($rc, undef, $err) = hopbench(qw(run topologies/reqrep.cfg --sizes 64 --messages 300
    --repeat 3 --quiet --output), $l);
is($rc, 0, 'reqrep repeat 3: exit 0') or diag $err;
my ($lm) = grep { $_->{repeat} eq 'median' } @{ csv("$l/latency.csv")->{rows} };
ok($lm && $lm->{p50_ci_low_us} <= $lm->{p50_us} && $lm->{p50_us} <= $lm->{p50_ci_high_us}
   && $lm->{p99_ci_low_us} <= $lm->{p99_us} && $lm->{p99_us} <= $lm->{p99_ci_high_us},
   'latency.csv: a median row, p50 and p99 inside their intervals');

# --- compare: a run against itself is no difference ---
($rc, $stdout, $err) = hopbench('compare', $ra, $ra);
is($rc, 0, 'compare A A: exit 0') or diag $err;
my @rows = grep { /^\s+\d+\s+\d+\s+.*msgs\/s/ } split /\n/, $stdout;
is(scalar @rows, 4, 'compare A A: 2 sizes x 2 hops');
ok(!grep({ !/\+0\.0%.*~ \(p=1\.000 n=5\+5\)$/ } @rows), 'compare A A: every row +0.0% and ~ (p = 1)');
like($stdout, qr/^geomean msgs\/s  over 4 rows: .* delta \+0\.0%$/m, 'compare A A: a geomean line');

# --- compare: made-up runs with known answers ---
my $header = join(',', qw(topology pattern size repeat hop from to transport sent
    received lost seconds msgs_per_sec mb_per_sec from_cpu to_cpu from_node to_node
    mode));
sub fake_run {
    my ($host, %rates) = @_;
    my $dir = tmp();
    my $csv = "$header\n";
    for my $key (sort keys %rates) {
        my ($size, $hop) = split /\//, $key;
        my $r = 0;
        $csv .= join(',', 'proxy', 'pubsub', $size, ++$r, $hop, $hop == 1 ? 'pub' : 'broker',
            $hop == 1 ? 'broker' : 'sub', 'tcp', 1000, 1000, 0, 1, $_, 0, -1, -1, -1, -1,
            'capacity') . "\n" for @{ $rates{$key} };
        $csv .= join(',', 'proxy', 'pubsub', $size, 'median', $hop, 'x', 'y', 'tcp', 0, 0, 0,
            1, 1, 0, -1, -1, -1, -1, 'capacity') . "\n";
    }
    write_file("$dir/results.csv", $csv);
    # metadata.json as a run writes it, on another host
    my $meta = decode_json(Hopbench::slurp("$ra/metadata.json"));
    $meta->{hostname} = $host;
    write_file("$dir/metadata.json", encode_json($meta));
    return $dir;
}
my $base = fake_run('alpha', '64/1' => [100, 101, 102, 103, 104],
                    '64/2' => [100, 101, 102, 103, 104], '1024/1' => [10, 11, 12]);
my $other = fake_run('beta', '64/1' => [50, 51, 52, 53, 54],
                     '64/2' => [104, 100, 103, 101, 102], '8192/1' => [5, 6, 7]);
($rc, $stdout, $err) = hopbench('compare', $base, $other);
is($rc, 0, 'compare made-up: exit 0') or diag $err;
like($stdout, qr/note: host differs: alpha in \Q$base\E, beta in \Q$other\E/, 'compare: names the hosts');
like($stdout, qr/^\s+64\s+1\s+pub -> broker\s+msgs\/s\s+102 .* -49\.0%\s+\[[-\d.]+%, [-\d.]+%\]\s+p=0\.008 n=5\+5$/m,
     'compare: hop 1 halved, significant (p = 2/252)');
like($stdout, qr/^\s+64\s+2\s+broker -> sub\s+msgs\/s .* \+0\.0%\s+.*~ \(p=\d\.\d+ n=5\+5\)$/m,
     'compare: hop 2 the same values reordered: ~');
like($stdout, qr/only in base \(\Q$base\E\):\n\s+proxy .* size 1024\s+hop 1/, 'compare: a row only in the base is listed');
like($stdout, qr/only in other \(\Q$other\E\):\n\s+proxy .* size 8192\s+hop 1/, 'compare: a row only in the other too');
($rc, $stdout) = hopbench('compare', $base, $other, '--format', 'csv');
is($rc, 0, 'compare --format csv: exit 0');
my $cf = tmp() . '/c.csv';
write_file($cf, $stdout);
my $c = csv($cf);
my ($h1) = grep { $_->{size} eq '64' && $_->{hop} eq '1' } @{ $c->{rows} };
is($h1->{significant}, '1', 'csv: hop 1 significant');
ok(abs($h1->{p_value} - 2 / 252) < 1e-4, 'csv: p = 2/252');
ok($h1->{delta_low} < 0 && $h1->{delta_high} < 0 && $h1->{delta_low} <= $h1->{delta}
   && $h1->{delta} <= $h1->{delta_high}, 'csv: the interval of the delta lies below 0 and holds it');
is(join(',', map { $_->{only} } grep { $_->{only} } @{ $c->{rows} }), 'a,b', 'csv: one row of each side only');
ok((grep { $_->{hop} eq 'geomean' && $_->{metric} eq 'msgs/s' } @{ $c->{rows} }), 'csv: a geomean row');
($rc, $stdout) = hopbench('compare', $base, $other, '--format', 'json', '--alpha', '0.001');
$doc = eval { decode_json($stdout) };
ok($doc, 'compare --format json: valid JSON') or diag $@;
is($doc->{alpha}, 0.001, 'json: alpha');
my ($j1) = grep { ($_->{size} // 0) == 64 && $_->{hop} eq '1' } @{ $doc->{rows} };
is($j1->{significant}, 0, 'json: at alpha 0.001, 5 against 5 cannot be significant');

# a hop that ran between other hosts (host = NAME) is named
my $hosted = tmp();
my $hcsv = Hopbench::slurp("$other/results.csv");
$hcsv =~ s/^(.*?),mode$/$1,mode,from_host,to_host/m;
$hcsv =~ s/,capacity$/,capacity,h1,h2/mg;
write_file("$hosted/results.csv", $hcsv);
write_file("$hosted/metadata.json", Hopbench::slurp("$other/metadata.json"));
($rc, $stdout, $err) = hopbench('compare', $base, $hosted);
is($rc, 0, 'compare across hosts: exit 0') or diag $err;
like($stdout, qr/note: hosts of a hop differ: size 64 hop 1 one host in \Q$base\E, h1 -> h2 in \Q$hosted\E/,
     'compare: names the hosts of a hop that differ');

# --- compare --by: the values of a swept key in one run ---
my $s = tmp();
($rc, undef, $err) = hopbench(qw(run topologies/direct.cfg --sizes 64 --repeat 3
    --output), $s, '--sweep', 'hwm=100,1000', @quick);
is($rc, 0, 'sweep hwm: exit 0') or diag $err;
($rc, $stdout, $err) = hopbench('compare', $s, '--by', 'hwm');
is($rc, 0, 'compare --by hwm: exit 0') or diag $err;
like($stdout, qr/other hwm=1000 against base hwm=100/, '--by: each value against the first');
like($stdout, qr/^\s+64\s+1\s+pub -> sub\s+msgs\/s .* \(p=\d\.\d+ n=3\+3(, too few)?\)$/m,
     '--by: the row, 3 against 3');

# --- what bad input says ---
($rc, undef, $err) = hopbench('compare', $ra);
is($rc, 2, 'one directory: exit 2');
like($err, qr/compare needs two results directories/, 'one directory: says so');
($rc, undef, $err) = hopbench('compare', $ra, '--by', 'placement');
is($rc, 2, '--by a key not swept: exit 2');
like($err, qr/no column sweep_placement: --by placement needs a run with --sweep placement=/,
     '--by a key not swept: says what is needed');
($rc, undef, $err) = hopbench('compare', $ra, tmp() . '/none');
is($rc, 2, 'a missing directory: exit 2');
like($err, qr/\/none: No such file or directory/, 'a missing directory: named');

# A file that is not what hopbench writes: exit 2 at file:line, naming
# the column; no row in common: exit 1, nothing to compare
sub broken {
    my ($edit) = @_;
    my $dir = tmp();
    my $text = Hopbench::slurp("$base/results.csv");
    $text = $edit->($text);
    write_file("$dir/results.csv", $text);
    write_file("$dir/metadata.json", Hopbench::slurp("$base/metadata.json"));
    return $dir;
}
my %bad = (
    'a truncated last line' => [ sub { $_[0] =~ s/,[^,\n]*\n\z//r },
        qr/results\.csv:17: 18 fields, but the header has 19 \(a line cut short\?\)/ ],
    'a nan rate' => [ sub { $_[0] =~ s/^(proxy,pubsub,1024,1,1,(?:[^,]*,){7})10,/${1}nan,/mr },
        qr/results\.csv:2: msgs_per_sec 'nan' is not a number \(of 0 or more\)/ ],
    'a hexadecimal rate' => [ sub { $_[0] =~ s/^(proxy,pubsub,1024,1,1,(?:[^,]*,){7})10,/${1}0x10,/mr },
        qr/results\.csv:2: msgs_per_sec '0x10' is not a number \(of 0 or more\)/ ],
    'a header only' => [ sub { $_[0] =~ s/\n.*/\n/sr },
        qr/results\.csv: a header and no rows \(the run measured nothing\)/ ],
);
for my $what (sort keys %bad) {
    my ($edit, $want) = @{ $bad{$what} };
    my $dir = broken($edit);
    ($rc, $stdout, $err) = hopbench('compare', $base, $dir);
    is($rc, 2, "compare, $what: exit 2");
    like($err, qr/^hopbench: compare: \Q$dir\E\/$want$/m, "compare, $what: file, line and column") or diag $err;
}
my $apart = fake_run('gamma', '128/1' => [1, 2, 3]);
($rc, $stdout, $err) = hopbench('compare', $base, $apart);
is($rc, 1, 'compare, no row in common: exit 1');
like($err, qr/^hopbench: compare: nothing to compare: no row of \Q$apart\E matches one of \Q$base\E/,
     'compare, no row in common: says so');
like($stdout, qr/only in other/, 'compare, no row in common: the rows are still listed');

# --- --plot: the delta chart ---
SKIP: {
    skip 'no gnuplot on PATH', 3 unless grep { -x "$_/gnuplot" } split /:/, $ENV{PATH};
    my $chart = tmp();
    ($rc, $stdout, $err) = hopbench('compare', $base, $other, '--plot', '--output', $chart);
    is($rc, 0, 'compare --plot: exit 0') or diag $err;
    my $png = "$chart/compare1-proxy-delta-vs-size.png";
    is(substr(Hopbench::slurp($png), 0, 8), "\x89PNG\r\n\x1a\n", 'compare --plot: a PNG');
    like(Hopbench::slurp("$chart/compare1-proxy.dat"), qr/^64 -49\.0196 /m, 'compare --plot: its data');
}
done_testing();
