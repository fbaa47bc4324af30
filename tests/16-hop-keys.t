#!/usr/bin/perl
# One rule for a hop's keys: below its `hop` line, or `--set hopN.KEY`;
# `hop = ipc` is short for `hop` with `transport = ipc` below it.  The
# three ways give the same pipeline.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $dir = tmp();
$ENV{TMPDIR} = $dir;
my $head = "topology = t\n    sizes = 64\n    transport = tcp\npublisher = pub\n";
my %ways = (
    value => [ $head . "hop = ipc\n    hwm = 500\nsubscriber = sub\n" ],
    child => [ $head . "hop\n    hwm = 500\n    transport = ipc\nsubscriber = sub\n" ],
    set   => [ $head . "hop\nsubscriber = sub\n", '--set', 'hop1.transport=ipc', '--set', 'hop1.hwm=500' ],
);
my %config;
for my $way (sort keys %ways) {
    my ($text, @args) = @{ $ways{$way} };
    write_file("$dir/$way.cfg", $text);
    my $out = "$dir/out-$way";
    my ($rc, undef, $err) = hopbench('run', "$dir/$way.cfg", @args,
        qw(--duration 0.1 --set warmup=0.05 --quiet --output), $out);
    is($rc, 0, "$way: exit 0") or diag $err;
    my @rows = @{ csv("$out/results.csv")->{rows} };
    is($rows[0]{transport}, 'ipc', "$way: hop 1 is ipc");
    ($config{$way} = Hopbench::slurp("$out/config.cfg")) =~ s/^# effective configuration of .*\n//;
}
is($config{child}, $config{value}, 'a transport below the hop is the hop\'s value');
is($config{set}, $config{value}, '--set hop1.transport is the hop\'s value');
like($config{value}, qr/^hop = ipc\n    endpoint = ""\n    hwm = "500"/m, 'the effective config says so');

# Not both
write_file("$dir/both.cfg", $head . "hop = ipc\n    transport = tcp\nsubscriber = sub\n");
my ($rc, $out, $err) = hopbench('check', "$dir/both.cfg");
is($rc, 2, 'value and child: exit 2');
like($err, qr/both\.cfg:6: transport given twice: also as the value of 'hop = ipc' \(line 5\)/,
    'value and child: at the child, naming the value');

# Every hop key below its hop line, as the man page shows a five-proxy chain
my $chain = "topology = five\n    sizes = 64\npublisher = pub\n";
for my $i (1 .. 5) {
    $chain .= "hop\n    transport = " . ($i % 2 ? 'tcp' : 'ipc') . "\n    hwm = " . (100 * $i) . "\n";
    $chain .= "    curve = true\n" if $i == 1;
    $chain .= "proxy = p$i\n";
}
write_file("$dir/five.cfg", $chain . "hop\n    transport = inproc\nsubscriber = sub\n");
($rc, $out, $err) = hopbench('check', "$dir/five.cfg");
is($rc, 0, 'five proxies, every hop key below its hop: exit 0') or diag $err;
done_testing();
