#!/usr/bin/perl
# README tells the truth: it is short, its two commands come first, and
# it names every shipped topology.  Every key of the program's own table
# is in README or docs/ with the same default and places.  Its tour, run
# as written, is tests/11-tour.t's.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $readme = Hopbench::slurp('README.md');
my @lines = split /\n/, $readme;
ok(@lines <= 250, 'README: ' . scalar(@lines) . ' lines, at most 250');

# The two commands, in the first code block, before any other command
my ($first) = $readme =~ /\n\n((?: {4}.*\n)+)/;
like($first // '', qr/^ {4}make run\b.*\n {4}make check\b/m,
     'README: the first code block is make run, then make check');

# Every key, documented with its places and default
my $documented = join "\n", $readme, map { Hopbench::slurp($_) } sort glob 'docs/*.md';
my ($rc, $keys) = hopbench('--help-keys');
is($rc, 0, '--help-keys: exit 0');
my @keys = split /\n/, $keys;
shift @keys;    # the header
ok(@keys > 10, 'several keys');
for (@keys) {
    my ($key, $rest) = /^(\S+)\s+(.*)$/ or next;
    my ($where, $default) =
        $rest =~ /^((?:topology|stage|hop|controller)(?:, (?:stage|hop|controller))*)\s+(\S+)/;
    ok(defined $where, "--help-keys: where and default of $key") or next;
    like($documented, qr/^\| \Q$key\E \| \Q$where\E \| \Q$default\E \|/m,
         "README or docs/ documents $key ($where, default $default)");
}

# Every shipped topology named, and every document it links to there
for my $file (glob 'topologies/*.cfg') {
    like($readme, qr/\Q$file\E/, "README names $file");
}
for my $file (glob 'topologies/libzmq/*.cfg') {
    my ($name) = $file =~ m{([^/]+)\.cfg$};
    like($readme, qr/`\Q$name\E`/, "README names libzmq's $name");
}
for my $link ($readme =~ /\]\(([^)#]+)\)/g) {
    ok(-e $link, "README links to $link, which exists");
}
done_testing();
