#!/usr/bin/perl
# Every CSV file a run writes keeps its columns: each shipped topology's
# short run (and a search, a sweep, --profile syscalls) writes exactly the
# files and header lines tests/fixtures/columns-headers.txt holds (taken
# from the program before its columns became tables, src/report/columns.h),
# and every row has as many fields as its header.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;
use Text::ParseWords qw(parse_line);

chdir "$FindBin::Bin/..";
my %want;    # run -> file -> header
open my $fh, '<', 'tests/fixtures/columns-headers.txt' or die "fixture: $!";
while (my $line = <$fh>) {
    chomp $line;
    my ($run, $file, $header) = split / /, $line, 3;
    $want{$run}{$file} = $header;
}
close $fh;

my @short = ('--sizes', '64', '--duration', '0.2', '--set', 'warmup=0.05', '--quiet');
my %extra = (
    'direct'         => ['--repeat', '3'],
    'direct-search'  => ['--set', 'mode=search', '--set', 'search_confirm=0.2'],
    'direct-sweep'   => ['--sweep', 'hwm=1000,2000'],
    'proxy-syscalls' => ['--profile', 'syscalls'],
);
my $dir = tmp();
for my $run (sort keys %want) {
    SKIP: {
        skip 'syscalls need root', 1 if $run =~ /syscalls/ && $> != 0;
        (my $topology = $run) =~ s/-(search|sweep|syscalls)$//;
        # latency.csv comes with its first row: a window of 0.2 s in which
        # a busy machine let no round trip end has none, and runs again;
        # so does a search whose every trial a busy machine failed (no
        # rate found: no confirmed rows in results.csv)
        my ($rc, $out, $err, @files);
        for my $attempt (1 .. 3) {
            my @args = ('run', "topologies/$topology.cfg", @short,
                @{ $extra{$run} // [] }, '--per-socket', '--output', "$dir/$run.$attempt");
            ($rc, $out, $err) = hopbench(@args);
            @files = sort map { s{.*/}{}r } glob("$dir/$run.$attempt/*.csv");
            my $found = $run !~ /-search$/ || @{ csv("$dir/$run.$attempt/results.csv")->{rows} };
            rename "$dir/$run.$attempt", "$dir/$run";
            my $latency = !$want{$run}{'latency.csv'} || grep { $_ eq 'latency.csv' } @files;
            last if $rc != 0 || $latency && $found;
            note("$run: " . ($latency ? 'the search found no rate' : 'no latency.csv (no latency '
                 . 'sample in the window)') . ", attempt $attempt");
            system('rm', '-rf', "$dir/$run");
        }
        is($rc, 0, "$run: run exit 0") or diag $err;
        is_deeply(\@files, [sort keys %{ $want{$run} }], "$run: its CSV files");
        check_file($run, $_) for @files;
    }
}

# The header as the fixture has it; every row as wide as the header; the
# repeat = median rows where 3 repeats were run
sub check_file {
    my ($run, $file) = @_;
    open my $in, '<', "$dir/$run/$file" or return fail("$run/$file: $!");
    chomp(my $header = <$in> // '');
    is($header, $want{$run}{$file} // '', "$run/$file: header");
    my $columns = () = split /,/, $header, -1;
    my ($rows, $wrong, $median) = (0, 0, 0);
    while (my $line = <$in>) {
        chomp $line;
        my @fields = parse_line(',', 1, $line);
        $rows++;
        $wrong++ if @fields != $columns;
        $median++ if $line =~ /,median,/;
    }
    ok($rows > 0 && $wrong == 0,
        "$run/$file: $rows rows, each of $columns fields") or diag "$wrong wrong";
    ok($median > 0, "$run/$file: median rows")
        if $run eq 'direct' && $file =~ /^(results|latency)\.csv$/;
}

done_testing();
