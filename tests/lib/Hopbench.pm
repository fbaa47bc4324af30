# Hopbench.pm: what the end-to-end tests share.
#
# hopbench(@args) runs ./hopbench with a timeout and returns its exit
# status, stdout and stderr; csv($path) reads a CSV file into a list of
# hashes keyed by the header; tmp() gives a directory removed at exit;
# long() is true under `make check-long` (HOPBENCH_LONG=1), where tests
# also run their slow cases: every shipped topology's search, more
# repeats.  HOPBENCH_TIMES=1 notes each hopbench's seconds
# (to find what makes a test slow).
package Hopbench;

use strict;
use warnings;
use Exporter 'import';
use File::Temp qw(tempdir);
use Time::HiRes qw(time);
use Text::ParseWords qw(parse_line);

our @EXPORT = qw(hopbench csv tmp write_file column_values long);

# Run ./hopbench (from the project root) with a hard timeout
sub hopbench {
    my (@args) = @_;
    my $dir = tmp();
    my $cmd = join ' ', map { quotemeta } './hopbench', @args;
    my $start = time;
    system("timeout -k 5 300 $cmd >$dir/out 2>$dir/err");
    my $status = $? == -1 ? 255 : $? >> 8;
    printf STDERR "# %.2f s: hopbench %s\n", time - $start, join(' ', @args)
        if $ENV{HOPBENCH_TIMES};
    return ($status, slurp("$dir/out"), slurp("$dir/err"));
}

sub slurp {
    my ($path) = @_;
    open my $fh, '<', $path or return '';
    local $/;
    my $text = <$fh>;
    return $text;
}

sub write_file {
    my ($path, $text) = @_;
    open my $fh, '>', $path or die "$path: $!";
    print $fh $text;
    close $fh;
}

# Rows of a CSV file as hashes; the header's column order in $rows->{columns}
sub csv {
    my ($path) = @_;
    open my $fh, '<', $path or return { columns => [], rows => [] };
    chomp(my $header = <$fh> // '');
    my @columns = split /,/, $header;
    my @rows;
    while (my $line = <$fh>) {
        chomp $line;
        my @values = parse_line(',', 0, $line);
        my %row;
        @row{@columns} = @values;
        push @rows, \%row;
    }
    return { columns => \@columns, rows => \@rows };
}

sub column_values {
    my ($table, $column) = @_;
    return map { $_->{$column} } @{ $table->{rows} };
}

sub long { return ($ENV{HOPBENCH_LONG} // '') eq '1' }

my @dirs;
sub tmp {
    my $dir = tempdir('hopbench-test.XXXXXX', TMPDIR => 1, CLEANUP => 1);
    return $dir;
}

1;
