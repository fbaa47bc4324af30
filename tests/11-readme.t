#!/usr/bin/perl
# README tells the truth about the keys: every key of the program's own
# table is in README's reference, with the same default and places (or,
# for a key whose topic has a document of its own, in that document's key
# table under docs/: docs/NUMA.md for the NUMA keys).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $readme = Hopbench::slurp('README.md');
my $documented = join "\n", $readme, map { Hopbench::slurp($_) } sort glob 'docs/*.md';
my ($rc, $keys) = hopbench('--help-keys');
is($rc, 0, '--help-keys: exit 0');
my @lines = split /\n/, $keys;
shift @lines;    # the header
ok(@lines > 10, 'several keys');
for (@lines) {
    my ($key, $rest) = /^(\S+)\s+(.*)$/ or next;
    my ($where, $default) =
        $rest =~ /^((?:topology|stage|hop|controller)(?:, (?:stage|hop|controller))*)\s+(\S+)/;
    ok(defined $where, "--help-keys: where and default of $key") or next;
    like($documented, qr/^\| \Q$key\E \| \Q$where\E \| \Q$default\E \|/m,
         "README or docs/ documents $key ($where, default $default)");
}
like($readme, qr/make run/, 'README: make run');
like($readme, qr/make check/, 'README: make check');
for my $file (glob 'topologies/*.cfg') {
    like($readme, qr/\Q$file\E/, "README names $file");
}
done_testing();
