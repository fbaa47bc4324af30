#!/usr/bin/perl
# Bad input never runs anything: exit 2, one line naming file:line.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $dir = tmp();

my %bad = (
    'typo.cfg' => [ "topology = t\npublisher = pub\nhop = tpc\nsubscriber = sub\n",
                    qr/typo\.cfg:3: unknown transport 'tpc' \(inproc, ipc, tcp\)/ ],
    'tab.cfg' => [ "topology = t\n\thwm = 5\npublisher = pub\n",
                   qr/tab\.cfg:2: tab character/ ],
    'key.cfg' => [ "topology = t\n    hwn = 5\npublisher = pub\nhop\nsubscriber = sub\n",
                   qr/key\.cfg:2: unknown key 'hwn' \(did you mean 'hwm'\?\)/ ],
    'sizes.cfg' => [ "topology = t\n    sizes = 0..-5\npublisher = pub\nhop\nsubscriber = sub\n",
                     qr/sizes\.cfg:2: sizes '0\.\.-5'/ ],
    'indent.cfg' => [ "topology = t\n        hwm = 5\n", qr/indent\.cfg:2: indented 8/ ],
    'spaces.cfg' => [ "topology = my topo\n", qr/spaces\.cfg:1: value 'my topo' has spaces/ ],
    'shape.cfg' => [ "topology = t\nsubscriber = s\nhop\npublisher = p\n",
                     qr/shape\.cfg:2: stage 1 of a pubsub pipeline is a publisher, not a subscriber/ ],
);
for my $name (sort keys %bad) {
    my ($text, $want) = @{ $bad{$name} };
    write_file("$dir/$name", $text);
    for my $command (qw(check run)) {
        my ($rc, $out, $err) = hopbench($command, "$dir/$name");
        is($rc, 2, "$command $name: exit 2");
        like($err, $want, "$command $name: says where and what");
        is($out, '', "$command $name: nothing on stdout");
    }
}

my ($rc, $out, $err) = hopbench('run', "$dir/missing.cfg");
is($rc, 2, 'missing file: exit 2');
like($err, qr/missing\.cfg: No such file or directory/, 'missing file: named');

($rc, $out, $err) = hopbench('run', 'topologies/proxy.cfg', '--sizes', '8,4');
is($rc, 2, 'bad --sizes: exit 2');
like($err, qr/--set sizes=8,4: sizes '8,4': 4 is outside/, 'bad --sizes: says why');

($rc, $out, $err) = hopbench('run', 'topologies/proxy.cfg', '--frobnicate');
is($rc, 2, 'unknown option: exit 2');
like($err, qr/unknown option '--frobnicate'/, 'unknown option: named');

($rc, $out, $err) = hopbench('run', 'topologies/proxy.cfg', '--set', 'transport=tpc');
is($rc, 2, 'bad --set: exit 2');
like($err, qr/--set transport=tpc: unknown transport 'tpc'/, 'bad --set: named');

($rc, $out, $err) = hopbench('--help');
is($rc, 0, '--help: exit 0');
like($out, qr/hopbench run TOPOLOGY\.cfg.*--sizes LIST.*exit status/s, '--help: usage');

($rc, $out, $err) = hopbench('machine', '--machine', 'numa/vm-2x2.cfg');
is($rc, 0, 'machine --machine: exit 0') or diag $err;
like($out, qr/^machine\s+vm-2x2 /, 'machine --machine: the machine');

($rc, $out) = hopbench('--version');
like($out, qr/^hopbench \d+\.\d+\.\d+ \(libzmq 4\.\d+\.\d+\)/, '--version');

for my $file (glob 'topologies/*.cfg') {
    ($rc, $out, $err) = hopbench('check', $file);
    is($rc, 0, "check $file: exit 0") or diag $err;
}
done_testing();
