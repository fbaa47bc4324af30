#!/usr/bin/perl
# Limits (docs/LIMITS.md): the largest pipelines hopbench allows run, and
# one past a limit is refused with exit 2 at the line that passes it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $dir = tmp();
$ENV{TMPDIR} = $dir;

# A chain: publisher, $n proxies, subscriber, every hop over $transport
sub chain {
    my ($n, $transport) = @_;
    my $text = "topology = chain$n\n    sizes = 64\npublisher = pub\n";
    $text .= "hop = $transport\nproxy = p$_\n" for 1 .. $n;
    return $text . "hop = $transport\nsubscriber = sub\n";
}

# The longest chain: 128 stages (LIMIT_STAGES), checked, planned and run
write_file("$dir/longest.cfg", chain(126, 'tcp'));
my ($rc, $out, $err) = hopbench('check', "$dir/longest.cfg");
is($rc, 0, 'longest chain: check exit 0') or diag $err;
like($out, qr/ok \(pubsub, 128 stages, 127 hops, 128 threads\)/, 'longest chain: 128 stages');
($rc, $out, $err) = hopbench('plan', "$dir/longest.cfg");
is($rc, 0, 'longest chain: plan exit 0') or diag $err;
like($out, qr/^p126\s+proxy\s+main/m, 'longest chain: plan has the last proxy');
my $results = "$dir/longest";
($rc, $out, $err) = hopbench('run', "$dir/longest.cfg", qw(--sizes 64
    --duration 0.2 --quiet --output), $results);
is($rc, 0, 'longest chain: run exit 0') or diag $err;
my @rows = @{ csv("$results/results.csv")->{rows} };
is(scalar @rows, 127, 'longest chain: a row per hop');
is($rows[-1]{from} . '->' . $rows[-1]{to}, 'p126->sub', 'longest chain: the last hop');
ok(!grep({ $_->{received} == 0 } @rows), 'longest chain: every hop delivered');

# One past it: refused at the stage that passes the limit
write_file("$dir/past.cfg", chain(127, 'ipc'));
for my $command (qw(check plan run)) {
    ($rc, $out, $err) = hopbench($command, "$dir/past.cfg");
    is($rc, 2, "one stage past the limit: $command exit 2");
    like($err, qr/past\.cfg:259: stage 129: a topology has at most 128 stages \(LIMIT_STAGES/,
        "one stage past the limit: $command names the line and the limit");
}

# 60 proxies, mixed transports: checked and planned
my $mixed = chain(60, 'ipc');
my $i = 0;
$mixed =~ s/^hop = ipc$/'hop = ' . (qw(ipc tcp inproc))[$i++ % 3]/gme;
write_file("$dir/sixty.cfg", $mixed);
($rc, $out, $err) = hopbench('check', "$dir/sixty.cfg");
is($rc, 0, '60 proxies: check exit 0') or diag $err;
($rc, $out, $err) = hopbench('plan', "$dir/sixty.cfg", '--format', 'csv');
is($rc, 0, '60 proxies: plan exit 0') or diag $err;
is(scalar(() = $out =~ /^p\d+,proxy,main,/mg), 60, '60 proxies: each planned');
($rc, $out, $err) = hopbench('run', "$dir/sixty.cfg", qw(--sizes 64
    --duration 0.2 --quiet --output), "$dir/sixty");
is($rc, 0, '60 proxies: run exit 0') or diag $err;
is(scalar @{ csv("$dir/sixty/results.csv")->{rows} }, 61, '60 proxies: a row per hop');

done_testing();
