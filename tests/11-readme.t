#!/usr/bin/perl
# README tells the truth: it is short, its two commands come first, every
# `./hopbench` command it shows runs (shortened: windows of 0.2 s after
# 0.05 s of warm-up, 3 repeats, ranges cut to their ends, a quick search,
# results/ in a temporary directory),
# the output it shows under a command has the lines that command prints
# today (numbers aside), and it names every shipped topology.  Every key
# of the program's own table is in README or docs/ with the same default
# and places.
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

# Code blocks (indented four spaces), cut at their blank lines into
# paragraphs: a paragraph of `./hopbench` commands, then what they print
my (@paras, $para);
for my $line (@lines, '') {
    if ($line =~ /^ {4}(.*\S.*)$/) {
        push @paras, $para = [] unless $para;
        push @$para, $1;
    } else {
        undef $para;
    }
}

# A README command as the test runs it
my $tmp = tmp();
sub shorten {
    my ($command) = @_;
    $command =~ s/^\.\/hopbench\s+//;
    $command =~ s/--duration \S+/--duration 0.2/g;
    $command =~ s/--sizes (\d+)\.\.(\d+)/--sizes $1,$2/g;
    $command =~ s{\bresults/}{$tmp/}g;
    $command .= ' --set search_trial=0.1 --set search_confirm=0.2'
        . ' --set search_trials=4 --set loss_ratio=0.01' if $command =~ /mode=search/;
    $command .= ' --duration 0.2' if $command =~ /^run / && $command !~ /--duration/;
    $command =~ s/--repeat \d+/--repeat 3/g;
    $command .= ' --set warmup=0.05' if $command =~ /^run /;
    return split ' ', $command;
}

# A shown output line as a pattern: numbers may differ, spacing may
sub shape {
    my ($line) = @_;
    $line =~ s{\bresults/}{$tmp/}g;
    my $re = join '', map { /^[\d.,]+$/ ? '[\d.,]+' : /^\s+$/ ? '\s+' : quotemeta }
        split /([\d.,]*\d[\d.,]*|\s+)/, $line;
    return qr/^\s*$re\s*$/m;
}

my $commands = 0;
for my $b (0 .. $#paras) {
    my @text = @{ $paras[$b] };
    next unless $text[0] =~ /^\.\/hopbench /;
    # a command and its continuation lines
    my @cmds;
    for (my $i = 0; $i < @text; $i++) {
        my $c = $text[$i];
        $c .= ' ' . $text[++$i] while $c =~ s/\s*\\$// && $i + 1 < @text;
        push @cmds, $c;
    }
    my $out;
    for my $c (@cmds) {
        my ($rc, $stdout, $err) = hopbench(shorten($c));
        is($rc, 0, "README runs: $c") or diag $err;
        $out = $stdout;
        $commands++;
    }
    # the paragraph after it, unless a command or a file, is what the
    # last one printed: its first two lines, numbers aside
    my $shown = $paras[$b + 1];
    next unless $shown && $shown->[0] !~ /^\.\/hopbench |^(topology|make|host) /;
    my @check = grep { !/^\s*\.\.\.\s*$/ } @$shown;
    my @lines = @check[0 .. ($#check < 1 ? $#check : 1)];
  SKIP: {
        # a search on a machine too busy to hold any rate prints no rows,
        # only why (its failures starved): the shape shown is not there
        skip("'$cmds[-1]': no rate held on this machine, so no table", scalar @lines)
            if $out =~ /^\s*search: no rate held/m;
        like($out, shape($_), "README shows what '$cmds[-1]' prints: $_") for @lines;
    }
}
ok($commands >= 8, "README: $commands commands run");

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
