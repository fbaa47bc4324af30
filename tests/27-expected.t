#!/usr/bin/perl
# The topic rule as docs/TOPICS.md writes it, held against the program:
# tools/expected.py computes every link's expected from a results
# directory (config.cfg, metadata.json's "published" counts) without
# hopbench, and each row of results.csv must have that expected exactly.
# Cases: topics.cfg (zipf, 8 x 10 %), a tree whose regions take disjoint
# topics, and subscribers of 10.5 % behind a proxy fed by two publishers
# (one row for both) with two sockets on some.  Expected is exact by construction; received is not,
# and nothing here asserts on it.  Also: the warning for subscribers of
# one share whose traffic is far apart, present and absent.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();
plan skip_all => 'no python3 on PATH (Debian: python3, in CHECK_DEBS): '
    . 'tools/expected.py cannot run'
    unless system('python3 -c "import json, csv" >/dev/null 2>&1') == 0;

# A capacity run into a fresh directory; its directory and stderr
sub run_dir {
    my ($name, @args) = @_;
    my $out = tmp();
    my ($rc, undef, $err) = hopbench('run', @args,
        qw(--duration 0.3 --set mode=capacity --quiet --format csv --output), $out);
    is($rc, 0, "$name: exit 0") or diag $err;
    return ($out, $err);
}

# The script's rows, keyed as results.csv's
sub script_rows {
    my ($name, $dir) = @_;
    my $text = `python3 tools/expected.py $dir 2>&1`;
    is($?, 0, "$name: tools/expected.py exit 0") or diag $text;
    my @lines = split /\n/, $text;
    my $header = shift @lines // '';
    is($header, 'size,repeat,hop,from,to,expected', "$name: the script's header");
    my %rows;
    for (@lines) {
        my ($size, $repeat, $hop, $from, $to, $expected) = split /,/;
        $rows{"$size/$repeat/$hop/$from/$to"} = $expected;
    }
    return \%rows;
}

# Every row of results.csv (repeats, not medians): expected as the rule
sub agrees {
    my ($name, $dir) = @_;
    my $rule = script_rows($name, $dir);
    my @rows = grep { $_->{repeat} =~ /^\d+$/ } @{ csv("$dir/results.csv")->{rows} };
    ok(@rows > 0, "$name: rows to compare");
    my $filtered = 0;
    for my $r (@rows) {
        my $key = "$r->{size}/$r->{repeat}/$r->{hop}/$r->{from}/$r->{to}";
        is($r->{expected}, $rule->{$key} // 'none',
           "$name: size $r->{size} hop $r->{hop} $r->{from} -> $r->{to}: expected as the rule");
        $filtered++ if $r->{expected} < $r->{sent};
        delete $rule->{$key};
    }
    ok($filtered > 0, "$name: $filtered rows filter (the rule, not sent, is tested)");
    is(join(' ', sort keys %$rule), '', "$name: the script has no row results.csv lacks");
}

my ($dir, $err) = run_dir('topics.cfg', 'topologies/topics.cfg', '--sizes', '64,1024');
agrees('topics.cfg', $dir);
unlike($err, qr/times as much/,
     'topics.cfg: one stage\'s 10 % subscribers take different topics by design: no share warning');

($dir, $err) = run_dir('tree, disjoint regions', qw(topologies/tree-fanout.cfg --sizes 64
    --set topics=100 --set topic_order=zipf:1.1 --set eu-sub.subscribe=0-32
    --set us-sub.subscribe=33-65 --set ap-sub.subscribe=66-99));
agrees('tree, disjoint regions', $dir);
unlike($err, qr/unequal|times as much/, 'tree, disjoint lists: no share warning');

($dir, $err) = run_dir('subscribe = 10.5%', qw(tests/fixtures/topics-share.cfg --sizes 64));
agrees('subscribe = 10.5%', $dir);
my $meta = `python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(" ".join(sorted(m["published"][0]["sent"])))' $dir/metadata.json`;
is($meta, "pub.1 pub.2\n", 'subscribe = 10.5%: metadata.json has each publisher\'s count');
done_testing();
