#!/usr/bin/perl
# What a topology file may hold (docs/LIMITS.md, "Files"): a UTF-8
# byte-order mark at its very start is skipped, and check says so; one
# anywhere else is refused by name; CRLF line ends are read as LF.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $dir = tmp();
my $bom = "\xEF\xBB\xBF";
my $direct = "# direct\ntopology = t\n    sizes = 64\npublisher = pub\nhop = ipc\nsubscriber = sub\n";

write_file("$dir/bom.cfg", $bom . $direct);
my ($rc, $out, $err) = hopbench('check', "$dir/bom.cfg");
is($rc, 0, 'a BOM at the start: check exit 0') or diag $err;
like($out, qr/bom\.cfg:1: note: skipped the UTF-8 byte-order mark at the start\n.*bom\.cfg: ok \(pubsub, 2 stages/,
    'a BOM at the start: check says it was skipped');
($rc, $out, $err) = hopbench('plan', "$dir/bom.cfg", '--format', 'csv');
is($rc, 0, 'a BOM at the start: plan exit 0') or diag $err;
unlike($out, qr/byte-order/, 'a BOM at the start: plan output as without it');

(my $crlf = $bom . $direct) =~ s/\n/\r\n/g;
write_file("$dir/crlf.cfg", $crlf);
($rc, $out, $err) = hopbench('check', "$dir/crlf.cfg");
is($rc, 0, 'a BOM and CRLF: check exit 0') or diag $err;

(my $middle = $direct) =~ s/^publisher/${bom}publisher/m;
write_file("$dir/middle.cfg", $middle);
($rc, $out, $err) = hopbench('check', "$dir/middle.cfg");
is($rc, 2, 'a BOM in the middle: exit 2');
like($err, qr/middle\.cfg:4: a UTF-8 byte-order mark \(U\+FEFF\) before 'publisher = pub'/,
    'a BOM in the middle: named, at its line');

write_file("$dir/twice.cfg", $bom . $bom . $direct);
($rc, $out, $err) = hopbench('check', "$dir/twice.cfg");
is($rc, 2, 'two BOMs: exit 2');
like($err, qr/twice\.cfg:1: a UTF-8 byte-order mark/, 'two BOMs: the second is named');

# A machine description is read the same way
write_file("$dir/machine.cfg", $bom . "machine = m\nnode = 0\n    cpus = 0-1\n    distances = 10\n");
($rc, $out, $err) = hopbench('machine', '--machine', "$dir/machine.cfg");
is($rc, 0, 'a BOM in a machine description: exit 0') or diag $err;
like($out, qr/^machine\s+m /, 'a BOM in a machine description: read');
done_testing();
