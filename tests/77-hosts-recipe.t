#!/usr/bin/perl
# docs/HOSTS.md's "Trying it on one machine": its recipe, pasted as a
# user would (the only change: this checkout's hopbench, and a short run
# with its output here), makes its hosts, runs the quick start's topology
# across them, and leaves no namespace behind.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Cwd qw(getcwd);
use Test::More;

chdir "$FindBin::Bin/..";
plan skip_all => 'hosts are network namespaces: root only' if $> != 0;
plan skip_all => 'needs iproute2 (ip)' if system('command -v ip >/dev/null') != 0;
my @names = qw(br ctl h1 h2 h3);
my %have = map { (split ' ')[0] => 1 } `ip netns list 2>/dev/null`;
plan skip_all => 'namespaces of the recipe\'s names exist already' if grep { $have{$_} } @names;

my $root = getcwd();
my $doc = Hopbench::slurp('docs/HOSTS.md');
my ($recipe) = $doc =~ /^## Trying it on one machine\n.*?\n\n((?:    [^\n]*\n)+)/ms;
ok($recipe && $recipe =~ /ip netns del/, 'the recipe is in docs/HOSTS.md');
$recipe =~ s/^    //mg;
$recipe =~ s/\bhopbench /$root\/hopbench /g;
$recipe =~ s/(hopbench run T\.cfg)/$1 --sizes 64 --duration 0.3 --quiet --output out/;

my $work = tmp();
write_file("$work/T.cfg", "topology = across\n    transport = tcp\npublisher = pub\n    host = h1\n"
    . "hop\nproxy = proxy\n    host = h2\nhop\nsubscriber = sub\n    host = h3\n");
write_file("$work/recipe.sh", $recipe);
my $rc = system("cd $work && timeout -k 5 120 bash recipe.sh > recipe.out 2>&1");
is($rc, 0, 'the recipe runs to its end') or diag Hopbench::slurp("$work/recipe.out");
my @rows = @{ csv("$work/out/results.csv")->{rows} };
is(join(' ', map { "$_->{from}\@$_->{from_host}->$_->{to}\@$_->{to_host}" } @rows),
   'pub@h1->proxy@h2 proxy@h2->sub@h3', 'a row per hop, across the hosts it made');
ok(!grep({ $_->{received} <= 0 || $_->{lost} != 0 } @rows), 'every hop took messages, none lost');
my %left = map { (split ' ')[0] => 1 } `ip netns list 2>/dev/null`;
is(join(' ', grep { $left{$_} } @names), '', 'no namespace of the recipe is left');
system("ip netns del $_ 2>/dev/null") for grep { $left{$_} } @names;
done_testing();
