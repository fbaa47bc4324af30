#!/usr/bin/perl
# The source tree keeps its layers (docs/ARCHITECTURE.md): the lint passes
# on the tree, and fails on a copy with an include from above, a file the
# page does not list, and two modules that include each other.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use File::Copy qw(copy);
use File::Path qw(make_path);
use Test::More;

chdir "$FindBin::Bin/..";
my $out = `tests/lint-layers 2>&1`;
is($?, 0, 'lint-layers passes on the tree') or diag $out;
like($out, qr/lint-layers: \d+ files, \d+ includes, ok/, 'lint-layers: its summary');

# A copy of the tree to break
sub copy_tree {
    my $dir = tmp();
    make_path("$dir/docs");
    copy('docs/ARCHITECTURE.md', "$dir/docs/ARCHITECTURE.md") or die $!;
    for my $file (glob 'src/*/*.[ch]') {
        make_path("$dir/" . ($file =~ s{/[^/]+$}{}r));
        copy($file, "$dir/$file") or die $!;
    }
    return $dir;
}
sub append {
    my ($path, $text) = @_;
    open my $fh, '>>', $path or die "$path: $!";
    print $fh $text;
    close $fh;
}
sub lint { my ($dir) = @_; my $text = `tests/lint-layers $dir 2>&1`; return ($? >> 8, $text) }

my $dir = copy_tree();
append("$dir/src/base/mono.h", "#include \"run/run.h\"\n");
my ($rc, $text) = lint($dir);
is($rc, 1, 'an include from a layer above: exit 1');
like($text, qr{src/base/mono\.h:\d+: includes run/run\.h, a layer above base/}, 'an include from above: named');

$dir = copy_tree();
write_file("$dir/src/config/unlisted.c", "/*  unlisted: nowhere in the page.  */\n");
($rc, $text) = lint($dir);
is($rc, 1, 'a file the page does not list: exit 1');
like($text, qr{src/config/unlisted\.c: not listed in docs/ARCHITECTURE\.md under config/}, 'unlisted: named');

$dir = copy_tree();
append("$dir/src/config/sizes.c", "#include \"config/sweep.h\"\n");
append("$dir/src/config/sweep.c", "#include \"config/sizes.h\"\n");
($rc, $text) = lint($dir);
is($rc, 1, 'two modules that include each other: exit 1');
like($text, qr{src/config/sizes\.c and src/config/sweep\.c include each other}, 'a cycle: named');
done_testing();
