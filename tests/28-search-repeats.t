#!/usr/bin/perl
# repeat = N with mode = search: N searches of each size, one after
# another.  Every file numbers them in its repeat column (search.csv's
# trials from 1 in each search), the table has each search's wall time
# and then the median and range of what they found, which are the found
# rates of search_summary.csv; compare judges two such runs as repeats
# (n = 2 + 2).  Nothing is asserted of a rate's value: a busy machine
# moves rates, not these facts.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();

# (no stall check: beside a second make check a trial cut short to 0.05 s
# delivered nothing in its window, twice, a stall and exit 1; stalls are
# tests/31-stalled.t's)
my @search = (qw(--sizes 1024 --set mode=search --repeat 2 --set search_trials=4
    --set search_trial=0.2 --set search_confirm=0.3 --set warmup=0.05
    --set stall_ratio=0 --output));

my $out = tmp();
my ($rc, $stdout, $err) = hopbench(qw(run topologies/proxy.cfg), @search, $out);
is($rc, 0, 'two searches of a size: exit 0') or diag $err;
for my $n (1, 2) {
    like($stdout, qr/^      wall time of search $n of 2: \d+\.\d s /m, "the table: search $n of 2's wall time")
        or diag $stdout;
}

# search_summary.csv: a row per search, each its own found rate
my @sum = @{ csv("$out/search_summary.csv")->{rows} };
is(join(',', map { $_->{repeat} } @sum), '1,2', 'search_summary.csv: a row per search, repeat 1 and 2');

# the table's line: the median and range of the found rates above (to
# the message per second: the file has them to a tenth)
my @held = sort { $a <=> $b } grep { $_ > 0 } map { $_->{found} } @sum;
if (@held) {
    my $median = @held == 2 ? ($held[0] + $held[1]) / 2 : $held[0];
    my @line = $stdout =~ /^  NDR over 2 searches: median ([\d,]+) msgs\/s \(min ([\d,]+), max ([\d,]+)\)/m;
    s/,//g for @line;
    ok(@line == 3 && abs($line[0] - $median) <= 1 && abs($line[1] - $held[0]) <= 1
       && abs($line[2] - $held[-1]) <= 1,
       "the table: NDR over 2 searches, median $median (min $held[0], max $held[-1]), as search_summary.csv found")
        or diag $stdout;
}
else {
    like($stdout, qr/^  NDR over 2 searches: none held$/m, 'the table: no search held a rate, and it says so');
}

# search.csv: each search's trials numbered from 1, in order
my %trials;
push @{ $trials{ $_->{repeat} } }, $_->{trial} for grep { $_->{hop} == 1 } @{ csv("$out/search.csv")->{rows} };
is(join(',', sort keys %trials), '1,2', 'search.csv: the trials of search 1 and of search 2');
for my $r (sort keys %trials) {
    my @t = @{ $trials{$r} };
    is("@t", join(' ', 1 .. @t), "search.csv: the trials of search $r are 1.." . scalar @t);
}

# results.csv: each search's confirmed rows under its repeat
my %rows;
$rows{ $_->{repeat} }++ for @{ csv("$out/results.csv")->{rows} };
is(join(',', map { "$_:" . ($rows{$_} // 0) } 1, 2),
   join(',', map { $_->{found} > 0 ? "$_->{repeat}:2" : "$_->{repeat}:0" } @sum),
   'results.csv: a search that held a rate has its two hops\' rows under its repeat');

# compare: two runs of two searches each, judged as repeats
my $other = tmp();
($rc, undef, $err) = hopbench(qw(run topologies/proxy.cfg --set search_reuse=false), @search, $other);
is($rc, 0, 'two searches on a fresh pipeline per trial: exit 0') or diag $err;
my $n = grep { $_->{found} > 0 } @{ csv("$other/search_summary.csv")->{rows} };
SKIP: {
    skip 'a side held no rate: nothing for compare to match', 1 unless @held && $n;
    ($rc, $stdout, $err) = hopbench('compare', $other, $out);
    like($stdout, qr/^  1024    2  broker -> sub .* n=$n\+${\ scalar @held}/m,
         "compare: the found rates as repeats, n=$n+" . scalar @held) or diag "$stdout$err";
}
done_testing();
