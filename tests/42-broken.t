#!/usr/bin/perl
# A results directory with a file that is not what hopbench writes:
# report, compare and plot each refuse it with exit 2, naming the file
# and (where the file has one) the line, and write nothing (no page, no
# chart script).  One short run is spoilt a file at a time.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";

my $good = tmp();
my ($rc, undef, $err) = hopbench(qw(run topologies/proxy.cfg --sizes 64
    --duration 0.1 --set warmup=0.05 --quiet --profile syscalls --output), $good);
is($rc, 0, 'a run to spoil: exit 0') or diag $err;
my $syscalls = -s "$good/syscalls.csv";

# A copy of the run with one file changed by $edit (its text in, out)
sub spoilt {
    my ($file, $edit) = @_;
    my $dir = tmp();
    system('cp', '-r', "$good/.", $dir) == 0 or die "cp: $!";
    unlink "$dir/report.html";
    write_file("$dir/$file", $edit->(Hopbench::slurp("$dir/$file")));
    return $dir;
}

my @threads_header = split /\n/, Hopbench::slurp("$good/threads.csv");
my %case = (
    'metadata.json not JSON' => ['metadata.json', sub { $_[0] =~ s/\}\s*\z//r },
        qr/metadata\.json:\d+: /],
    'metadata.json without its status' => ['metadata.json', sub { $_[0] =~ s/"status"/"state"/r },
        qr/metadata\.json: no field "status"/],
    'metadata.json with a key twice' => ['metadata.json', sub { $_[0] =~ s/\{/{"status": "ok", /r },
        qr/metadata\.json:\d+: duplicate object key/],
    'results.csv cut mid-row' => ['results.csv', sub { substr($_[0], 0, length($_[0]) - 9) },
        qr/results\.csv:\d+: \d+ fields, but the header has \d+|results\.csv:\d+: the last row has no line break/],
    "results.csv with threads.csv's header" => ['results.csv', sub { $_[0] =~ s/^[^\n]*/$threads_header[0]/r },
        qr/results\.csv:1: '\w+' is not a column of results\.csv/],
    'threads.csv cut mid-row' => ['threads.csv', sub { substr($_[0], 0, length($_[0]) - 3) },
        qr/threads\.csv:\d+: /],
    'syscalls.csv cut mid-row' => ['syscalls.csv', sub { substr($_[0], 0, length($_[0]) - 3) },
        qr/syscalls\.csv:\d+: /],
);
for my $what (sort keys %case) {
    my ($file, $edit, $says) = @{ $case{$what} };
    SKIP: {
        skip 'no syscalls.csv (perf_event_open refused here)', 9
            if $file eq 'syscalls.csv' && !$syscalls;
        my $dir = spoilt($file, $edit);
        my ($out, $e);
        ($rc, $out, $e) = hopbench('report', $dir);
        is($rc, 2, "report, $what: exit 2");
        like($e, qr/^hopbench: report: \Q$dir\E\/$says/m, "report, $what: the file and what is wrong") or diag $e;
        ok(!-e "$dir/report.html", "report, $what: no page");
        ($rc, $out, $e) = hopbench('compare', $good, $dir);
        is($rc, 2, "compare, $what: exit 2");
        like($e, qr/^hopbench: compare: \Q$dir\E\/$says/m, "compare, $what: the file and what is wrong") or diag $e;
        is($out, '', "compare, $what: nothing on stdout");
        ($rc, $out, $e) = hopbench('plot', $dir);
        is($rc, 2, "plot, $what: exit 2");
        like($e, qr/^hopbench: \Q$dir\E\/$says/m, "plot, $what: the file and what is wrong") or diag $e;
        ok(!-e "$dir/plot.gp", "plot, $what: no script, no chart");
    }
}
done_testing();
