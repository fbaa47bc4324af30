#!/usr/bin/perl
# Bad input never runs anything: exit 2, one line naming file:line (or
# the option), and why: a message too long is cut in the value it
# echoes, never in its reason; control characters are escaped.
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

# Nonsense that used to pass, and messages that lost their reason
my @refused = (
    [ 'loss_ratio=1', [qw(check topologies/proxy.cfg --set mode=search --set loss_ratio=1)],
      qr/^hopbench: --set loss_ratio=1: loss_ratio must be at least 0 and less than 1, not '1'$/ ],
    [ '--duration 0x10', [qw(check topologies/proxy.cfg --duration 0x10)],
      qr/^hopbench: --set duration=0x10: duration must be a number, not '0x10'$/ ],
    [ 'hwm = 0x10', [qw(check topologies/proxy.cfg --set hwm=0x10)],
      qr/^hopbench: --set hwm=0x10: hwm must be a whole number, not '0x10'$/ ],
    [ 'timeout = inf', [qw(check topologies/proxy.cfg --set timeout=inf)],
      qr/^hopbench: --set timeout=inf: timeout must be a number, not 'inf'$/ ],
    [ '--alpha 0x0.1p0', [qw(compare a b --alpha 0x0.1p0)],
      qr/^hopbench: --alpha must be a number above 0 and at most 0\.5, not '0x0\.1p0'$/ ],
    [ 'keygen --name of 300', [ 'keygen', "$dir/keys", '--name', 'n' x 300 ],
      qr/^hopbench: keygen: name 'n{40}\.\.\.': 300 characters, more than 64 \(LIMIT_KEYGEN_NAME/ ],
    [ 'an escape typed in --set', [ qw(check topologies/proxy.cfg --set), "transport=t\e[31mcp" ],
      qr/^hopbench: --set transport=t\\x1b\[31mcp: unknown transport 't\\x1b\[31mcp' \(inproc, ipc, tcp\)$/ ],
);
for (@refused) {
    my ($what, $args, $want) = @$_;
    ($rc, $out, $err) = hopbench(@$args);
    is($rc, 2, "$what: exit 2");
    like($err, $want, "$what: says why") or diag $err;
}
ok(!-e "$dir/keys", 'keygen --name of 300: nothing written');

# Long values: the message is cut in the echoed value, never the reason
my $long = 'x' x 3000;
write_file("$dir/long.cfg", "topology = t\n    $long = 5\npublisher = pub\nhop\nsubscriber = sub\n");
($rc, $out, $err) = hopbench('check', "$dir/long.cfg");
is($rc, 2, 'a key of 3000 characters: exit 2');
like($err, qr/^hopbench: \Q$dir\E\/long\.cfg:2: unknown key 'x+ \.\.\. x+' \(hopbench --help-keys lists them\)\n\z/,
     'a key of 3000 characters: file:line and the reason, the key cut') or diag $err;
my $sizes = join(',', (8) x 120, 4);
($rc, $out, $err) = hopbench(qw(check topologies/proxy.cfg --sizes), $sizes);
is($rc, 2, 'a long size list: exit 2');
like($err, qr/: 8 is listed twice\n\z/, 'a long size list: the reason kept') or diag $err;
write_file("$dir/hostlist.cfg", "topology = t\npublisher = pub\nhop = tcp\nsubscriber = sub\n"
    . "    count = 64\n    host = " . join(',', map { sprintf('h%023d', $_) } 1 .. 64) . ",x\n");
($rc, $out, $err) = hopbench('check', "$dir/hostlist.cfg");
is($rc, 2, 'a host list past its limit: exit 2');
like($err, qr/^hopbench: \Q$dir\E\/hostlist\.cfg:6: host is longer than 1599 characters \(LIMIT_HOST_LIST, docs\/LIMITS\.md\)\n\z/,
     'a host list past its limit: at its line, the limit named') or diag $err;
($rc, $out, $err) = hopbench(qw(check topologies/proxy.cfg --set), 'sub.host=' . ('h' x 60) . ',' . ('i' x 60));
is($rc, 2, 'host names of 60: exit 2');
like($err, qr/: host 'h{60},i{60}': names of 1 to 24 letters, digits, _ and -, commas between, or a range like h3\.\.h98 \('h{60}' is not\)\n\z/,
     'host names of 60: the reason kept') or diag $err;
# --output naming a file: a usage error before anything runs; a range's
# bounds printed as numbers the parser takes back
write_file("$dir/a-file", "x\n");
($rc, $out, $err) = hopbench(qw(run topologies/proxy.cfg --sizes 64 --output), "$dir/a-file");
is($rc, 2, '--output naming a file: exit 2');
like($err, qr/--output \S*a-file: not a directory/, '--output naming a file: said');
($rc, $out, $err) = hopbench(qw(check topologies/proxy.cfg --set hwm=99999999999));
is($rc, 2, 'hwm out of range: exit 2');
like($err, qr/hwm must be between 0 and 1000000000, not '99999999999'/, 'hwm out of range: its bounds as plain numbers');

done_testing();
