#!/usr/bin/perl
# The man pages say what the program does: both render without a warning,
# hopbench.1 has every option and command --help lists and every limit
# docs/LIMITS.md lists, hopbench-topology.5 every key --help-keys lists;
# their examples run (the topology files check, the commands run on short
# sizes); make install puts both where man finds them.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my @pages = ('hopbench.1', 'hopbench-topology.5');
for my $page (@pages) {
    BAIL_OUT("$page is missing: make builds it") unless -f $page;
}

# Run a command; its exit status, stdout and stderr
sub capture {
    my ($cmd) = @_;
    my $dir = tmp();
    system("$cmd >$dir/out 2>$dir/err");
    return ($? >> 8, Hopbench::slurp("$dir/out"), Hopbench::slurp("$dir/err"));
}

# The page as text (ASCII hyphens, no bold), one section by name
my %text;
for my $page (@pages) {
    my ($rc, $out, $err) = capture("groff -man -Tutf8 -ww -P-cbou $page");
    is($rc, 0, "groff renders $page");
    is($err, '', "groff -ww: no warnings for $page") or diag $err;
    $text{$page} = $out;
    ($rc, $out, $err) = capture("MANWIDTH=80 MANPAGER=cat man --warnings -l $page");
    is($rc, 0, "man -l $page");
    is($err, '', "man -l $page: nothing on stderr") or diag $err;
    like($out, qr/^NAME\n/m, "man -l $page: a NAME section");
}
sub section {
    my ($page, $name) = @_;
    my ($body) = $text{$page} =~ /^\Q$name\E\n(.*?)(?=^[A-Z][A-Z ]+\n|\z)/ms;
    return $body // '';
}

# hopbench.1: every option, command and exit status of --help
my ($rc, $help) = hopbench('--help');
is($rc, 0, '--help: exit 0');
my @options = $help =~ /^  (?:-\w, )?(--[\w-]+)/mg;
ok(@options > 10, 'options from --help') or diag $help;
my $options = section('hopbench.1', 'OPTIONS');
for my $option (@options) {
    like($options, qr/^ {7}(?:-\w, )?\Q$option\E\b/m, "hopbench.1 OPTIONS: $option");
}
my @commands = $help =~ /^(?:usage:| {6}) hopbench (\w+)/mg;
ok(@commands >= 5, 'commands from --help');
my $commands = section('hopbench.1', 'COMMANDS');
for my $command (@commands) {
    like($commands, qr/^ {7}hopbench \Q$command\E\b/m, "hopbench.1 COMMANDS: $command");
    like(section('hopbench.1', 'SYNOPSIS'), qr/^ {7}hopbench \Q$command\E\b/m,
         "hopbench.1 SYNOPSIS: $command");
}
like($commands, qr/hopbench check TOPOLOGY\.cfg\n.*\n\s+Options:[^.]*--set[^.]*--machine/,
     'hopbench.1: check takes --set and --machine');
my ($exits) = $help =~ /^exit status:\n(.*)/ms;
my @statuses = ($exits // '') =~ /^  (\d+)/mg;
is_deeply([ sort { $a <=> $b } @statuses ], [ 0, 1, 2, 3, 4, 130, 143 ], '--help: exit statuses');
for my $status (@statuses) {
    like(section('hopbench.1', 'EXIT STATUS'), qr/^ {7}\Q$status\E\s/m, "hopbench.1 EXIT STATUS: $status");
}

# hopbench.1: every limit of docs/LIMITS.md's table, with its value
my @limits = Hopbench::slurp('docs/LIMITS.md') =~ /^\| `(LIMIT_\w+)` \| (\d+) \|/mg;
ok(@limits > 20, 'limits from docs/LIMITS.md');
while (my ($name, $value) = splice @limits, 0, 2) {
    like(section('hopbench.1', 'LIMITS'), qr/^ {7}\Q$name $value\E\n {14}\S/m,
         "hopbench.1 LIMITS: $name $value");
}

# hopbench-topology.5: every key of --help-keys, with its default
(my $rc_keys, my $keys) = hopbench('--help-keys');
is($rc_keys, 0, '--help-keys: exit 0');
my $reference = section('hopbench-topology.5', 'KEYS');
my $nkeys = 0;
for (split /\n/, $keys) {
    my ($key, $where, $default) =
        /^(\w+)\s+((?:topology|stage|hop)(?:, (?:stage|hop))*)\s+(\S+)/ or next;
    $nkeys++;
    my ($entry) = $reference =~ /^ {7}\Q$key\E(?: +|\n)(.*?)(?=^ {7}\S|\z)/ms;
    ok(defined $entry, "hopbench-topology.5 KEYS: $key") or next;
    like($entry, qr/Where: \Q$where\E\.\s+Default: \Q@{[ $default eq '""' ? 'none (empty)' : $default ]}\E\./,
         "hopbench-topology.5: $key is $where, default $default");
    like($entry, qr/Accepts: /, "hopbench-topology.5: what $key accepts");
}
ok($nkeys > 10, "keys from --help-keys ($nkeys)");
for my $pattern (qw(pubsub pushpull reqrep connect)) {
    like(section('hopbench-topology.5', 'PATTERNS'), qr/^ {7}\Q$pattern\E\s+Stages: \w+/m,
         "hopbench-topology.5 PATTERNS: $pattern and its stages");
}

# The examples, as they are in the pages' source (.EX to .EE)
sub examples {
    my ($page) = @_;
    my $source = Hopbench::slurp($page);
    my ($section) = $source =~ /^\.SH "EXAMPLES"\n(.*?)(?=^\.SH |\z)/ms;
    my @blocks = ($section // '') =~ /^\.EX\n(.*?)^\.EE\n/msg;
    for (@blocks) {
        s/\\-/-/g;
        s/\\&//g;
        s/\\e/\\/g;
    }
    return @blocks;
}

my $tmp = tmp();
my @files = examples('hopbench-topology.5');
ok(@files >= 4, 'hopbench-topology.5: examples');
my $i = 0;
for my $text (@files) {
    my $file = "$tmp/example" . ++$i . '.cfg';
    write_file($file, $text);
    my ($name) = $text =~ /^topology = (\S+)/m;
    ($rc, undef, my $err) = hopbench('check', $file, '--machine', 'numa/xeon-e5-2680v4-2s.cfg');
    is($rc, 0, "hopbench-topology.5 example $name checks on a two-socket machine") or diag $err;
}
like(join('', @files), qr/^hop\n    endpoint = .*\n    hwm = .*\n    curve = true\n/m,
     'hopbench-topology.5: an example with a hop\'s own endpoint, hwm and curve');

# hopbench.1's commands, runs made short (the last word wins): one size,
# windows of 0.2 s after 0.05 s of warm-up, and 3 repeats where an
# example repeats (the fewest that give a median and its interval)
my $gnuplot = !system('command -v gnuplot >/dev/null 2>&1');
my @short = qw(--sizes 64 --duration 0.2 --set warmup=0.05 --quiet);
for my $block (examples('hopbench.1')) {
    $block =~ s/\s*\\\n\s*/ /g;
    for my $line (split /\n/, $block) {
        my @words = split ' ', $line;
        shift @words;    # hopbench
        s{^results/}{$tmp/} for @words;
        # what an example writes goes to the scratch directory too
        for my $i (1 .. $#words) {
            $words[$i] = "$tmp/$words[$i]"
                if $words[$i - 1] =~ /^(?:-o|--output)$/ && $words[$i] !~ m{^/};
        }
        my $command = $words[0];
        push @words, @short if $command eq 'run';
        push @words, '--repeat', 3 if $command eq 'run' && grep { $_ eq '--repeat' } @words;
        push @words, '--max-repeat', 3 if $command eq 'run' && grep { $_ eq '--max-repeat' } @words;
        push @words, '--output', "$tmp/run" if $command eq 'run' && !grep { $_ eq '--output' } @words;
        SKIP: {
            skip "no gnuplot for: $line", 1 if $command eq 'plot' && !$gnuplot;
            ($rc, undef, my $err) = hopbench(@words);
            is($rc, 0, "hopbench.1 example: $line") or diag $err;
        }
    }
}

# make install: both pages where man looks for them (the build that is
# there, normal or sanitized)
my $flavour = Hopbench::slurp('build/flavour') =~ /sanitize/ ? 'SANITIZE=1' : '';
($rc, undef, my $err) = capture("make -s install $flavour PREFIX=/usr DESTDIR=$tmp/root");
is($rc, 0, 'make install DESTDIR=...') or diag $err;
ok(-f "$tmp/root/usr/share/man/man1/hopbench.1", 'installed: share/man/man1/hopbench.1');
ok(-f "$tmp/root/usr/share/man/man5/hopbench-topology.5", 'installed: share/man/man5/hopbench-topology.5');
done_testing();
