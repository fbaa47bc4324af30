#!/usr/bin/perl
# hopbench size --extrapolate: one fit per message size, made from the
# candidates of that size measured on trials that were not starved, with
# its residuals and the range of k it was fitted on, printed and written
# (sizing_fit.csv, sizing.json's fits); predictions never among the
# measured rows; the key a resource of the deployment, never demand.
# Cheap: a target no candidate carries, so each of the 6 candidates is a few
# capacity trials of 0.1 s; the refusals run nothing.  The capacities are
# this busy machine's: the fit is held to the rule (a starved point left
# out, fewer than 3 points no fit), never to a value.  starved_pct = 100
# so that a fit is made here whatever else runs (a point is starved when
# a stage waited for a CPU past it); leaving starved points out is the
# selftest's (size_extrapolate, on rows made by hand).
use strict;
use warnings;
use lib 'tests/lib';
use Hopbench;
use JSON::PP;
use List::Util qw(min max);
use Test::More;

my $tmp = tmp();
my @size = ('size', 'topologies/proxy.cfg', '--set', 'search_trial=0.1',
            '--set', 'size_window=0.1', '--quiet', '--target', 'rate=1e8');

my ($rc, $stdout, $lines) = hopbench(@size, '--sizes', '64,1024', '--set', 'starved_pct=100',
                                     '--try', 'broker.io_threads=1,2,3', '--extrapolate',
                                     '--format', 'json', '--output', "$tmp/x");
# (3: none meets; 4: what failed them was starved, inconclusive)
ok($rc == 3 || $rc == 4, "none carries 1e8 msgs/s: exit $rc") or diag $lines;

# The measured rows are the candidates, and only they: no prediction
my @rows = @{ csv("$tmp/x/sizing.csv")->{rows} };
is(join(' ', map { "$_->{candidate}:$_->{size}:$_->{try}" } @rows),
   join(' ', map { my $k = $_; map { ($k - 1) * 2 + $_ + 1 . ':' . (64, 1024)[$_] . ":broker.io_threads=$k" } 0, 1 } 1 .. 3),
   'sizing.csv: the 6 candidates, io_threads 1..3 at 64 and 1024 B, nothing predicted among them');
my $json = eval { decode_json($stdout) } // {};
is(scalar @{ $json->{candidates} // [] }, 6, 'sizing.json: the same 6 candidates');

my @fit = @{ csv("$tmp/x/sizing_fit.csv")->{rows} };
my @fits = @{ $json->{fits} // [] };
is(join(',', map { $_->{size} } @fits), '64,1024', 'sizing.json: a fit per size, in order');
for my $size (64, 1024) {
    my @mine = grep { $_->{size} == $size } @rows;
    my @points = grep { $_->{size} == $size && $_->{kind} =~ /^(fitted|left out)/ } @fit;
    my @answer = grep { $_->{size} == $size && $_->{kind} !~ /^(fitted|left out)/ } @fit;
    is(join(' ', map { "#$_->{candidate}=$_->{k}" } @points),
       join(' ', map { "#$_->{candidate}=" . ($_->{try} =~ /=(\d+)$/)[0] } @mine),
       "$size B: a point per candidate of this size, and no other's");
    is(scalar @answer, 1, "$size B: one answer row");
    # fitted: measured and not starved, with the capacity sizing.csv has
    my @wrong = grep {
        my $p = $_;
        my ($r) = grep { $_->{candidate} == $p->{candidate} } @mine;
        ($p->{kind} eq 'fitted') != ($r->{capacity_per_sec} ne '' && $r->{starved} != 1)
          || ($p->{kind} eq 'left out: starved') != ($r->{capacity_per_sec} ne '' && $r->{starved} == 1)
          || abs(($p->{capacity_per_sec} || 0) - ($r->{capacity_per_sec} || 0)) > 0.1
    } @points;
    ok(!@wrong, "$size B: fitted = measured on trials not starved; starved ones left out (kinds: "
       . join(', ', map { $_->{kind} } @points) . ')');
    my @fitted = grep { $_->{kind} eq 'fitted' } @points;
    my ($f) = grep { $_->{size} == $size } @fits;
    my $a = $answer[0] // {};
    if (@fitted >= 3) {
        is("$a->{law} $a->{points} $a->{params}", 'Amdahl 3 2', "$size B: 3 points, kappa held at 0 (Amdahl)");
        ok(!grep({ $_->{residual_per_sec} eq ''
                   || abs($_->{capacity_per_sec} - $_->{fitted_per_sec} - $_->{residual_per_sec}) > 0.2 } @fitted)
           && $a->{residual_se} ne '',
           "$size B: each point's residual (measured - fitted) and their standard error");
        is("$a->{k_min}..$a->{k_max}", '1..3', "$size B: the range fitted, 1..3");
        my %measured = map { $_->{k} => 1 } grep { $_->{kind} ne 'left out: not measured' } @points;
        ok($a->{kind} eq 'predicted'
           ? !$measured{$a->{k}} && $a->{candidate} eq ''
             && $a->{beyond_range} == ($a->{k} > 3 || $a->{k} < 1)
           : $a->{kind} =~ /^(beyond the peak|answered by a measured row)$/,
           "$size B: its answer ($a->{kind} $a->{k}): a k not measured, beyond the range when it is");
        like($lines, qr/^extrapolated at $size B: Amdahl's law \(kappa held at 0: a 4th point fits the USL\) over broker\.io_threads 1\.\.3, 3 points \(#\d+ #\d+ #\d+\): lambda \d+ msgs\/s, sigma [\d.]+, kappa 0\.00000; residuals 1:[-+]\d+ 2:[-+]\d+ 3:[-+]\d+, standard error \d+ msgs\/s \(1 degree of freedom\)$/m,
             "$size B: the fit printed, its residuals and their error");
        is(scalar @{ $f->{rows} // [] }, 4, "$size B: sizing.json has its 3 points and its answer");
        is($f->{law}, 'Amdahl', "$size B: sizing.json's law");
    } else {
        is($a->{kind}, 'no fit', "$size B: fewer than 3 points not starved: no fit");
        like($a->{why}, qr/^\d+ points? measured on trials not starved \(of \d+ measured\): a fit needs at least 3$/,
             "$size B: ...and why");
        like($lines, qr/^extrapolated at $size B: no prediction: \d+ points? measured/m, "$size B: said");
        ok($f && $f->{law} eq '' && !defined $f->{lambda}, "$size B: sizing.json: no law, no lambda");
    }
    ok(!grep({ $_->{kind} eq 'left out: starved' && $lines !~ /^extrapolated at $size B: left out broker\.io_threads=$_->{k} \(#$_->{candidate}\): a trial of it was starved/m } @points),
       "$size B: each point left out, said");
}
my $file = eval { decode_json(Hopbench::slurp("$tmp/x/sizing.json")) } // {};
is_deeply($file->{fits}, $json->{fits}, 'sizing.json in the directory: the same fits');

# The key is a resource of the deployment: refused before anything runs
for my $case (['pub.count=1,2,3', qr/--try pub\.count: a count of publishers is demand, not a resource/],
              ['sub.io_threads=1,2,3', qr/--try sub\.io_threads: sub is a subscriber, the load/],
              ['broker.count=1,2,3', qr/--try broker\.count: proxy broker runs once/],
              ['engine=steerable,forwarder,zproxy', qr/--try engine: not a count of a resource/],
              ['broker.io_threads=1,2', qr/--try broker\.io_threads has 2 values: a fit needs at least 3 points/]) {
    my $out = "$tmp/refused";
    ($rc, undef, my $err) = hopbench(@size, '--sizes', '64', '--try', $case->[0], '--extrapolate', '--output', $out);
    is($rc, 2, "--extrapolate --try $case->[0]: exit 2");
    like($err, qr/\Ahopbench: size: --extrapolate: $case->[1]/, '...naming it') or diag $err;
    ok(!-e $out, '...nothing written');
}

# The examples GUIDE gives pass those checks (its run then stops at a
# hosts file that is not there, before any trial)
my ($guide) = Hopbench::slurp('docs/GUIDE.md') =~ /^\*\*Extrapolation\.\*\*(.*?)\n\n/ms;
my @examples = ($guide // '') =~ /`--try\s+([\w.]+=[\d,]+)`/g;
ok(@examples, 'GUIDE: extrapolation examples (' . join(', ', @examples) . ')');
for my $example (@examples) {
    ($rc, undef, my $err) = hopbench(@size, '--sizes', '64', '--try', $example, '--extrapolate',
                                     '--hosts', "$tmp/no-hosts", '--output', "$tmp/g");
    like($err, qr/no-hosts/, "GUIDE's --try $example: accepted by --extrapolate") or diag $err;
}

done_testing();
