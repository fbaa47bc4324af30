#!/usr/bin/perl
# README's tour, run as written (shortened: windows of 0.2 s after 0.05 s
# of warm-up, 3 repeats, ranges cut to their ends, a quick search,
# results/ in a temporary directory):
# every `./hopbench` command of its code blocks runs, the output shown
# under it has the lines that command prints today (numbers aside), and
# what README's words say of each block holds of what it printed and
# wrote: a run's rows and their one window, the flood's HWM rows, the
# rate a search offered and the rows it confirmed, the topics' expected
# and selectivity, --quiet as its help says, plot and report, the
# repeats' ± and the system calls' blocks.  Every progress count stays
# within its total, every stall within its window.  And `make run`
# installs and builds what the tour uses.  It needs only what make run
# installs (tests/install-debs perl gnuplot-nox man-db).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use List::Util qw(max);
use Test::More;

chdir "$FindBin::Bin/..";
my $readme = Hopbench::slurp('README.md');

# Code blocks (indented four spaces), cut at their blank lines into
# paragraphs: a paragraph of `./hopbench` commands, then what they print
my (@paras, $para);
for my $line (split(/\n/, $readme), '') {
    if ($line =~ /^ {4}(.*\S.*)$/) {
        push @paras, $para = [] unless $para;
        push @$para, $1;
    } else {
        undef $para;
    }
}

# A README command as the test runs it; a run gets a directory of its own
my $tmp = tmp();
my $runs = 0;
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
    $command .= ' --output ' . $tmp . '/run' . ++$runs
        if $command =~ /^run / && $command !~ /--output/;
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

# Every command of the tour, run; what it printed, and its directory
my @ran;
for my $b (0 .. $#paras) {
    my @text = @{ $paras[$b] };
    next unless $text[0] =~ /^\.\/hopbench /;
    my @cmds;
    for (my $i = 0; $i < @text; $i++) {
        my $c = $text[$i];
        $c .= ' ' . $text[++$i] while $c =~ s/\s*\\$// && $i + 1 < @text;
        push @cmds, $c;
    }
    for my $c (@cmds) {
        my @args = shorten($c);
        my ($rc, $out, $err) = hopbench(@args);
        is($rc, 0, "README runs: $c") or diag $err;
        my ($dir) = join(' ', @args) =~ /--output (\S+)/;
        push @ran, { readme => $c, args => "@args", out => $out, err => $err,
                     dir => $dir // '' };
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
            if $ran[-1]{out} =~ /^\s*search: no (rate held|offered rate passed)/m;
        like($ran[-1]{out}, shape($_), "README shows what '$cmds[-1]' prints: $_") for @lines;
    }
}
ok(@ran >= 8, 'README: ' . scalar(@ran) . ' commands run');

# The commands of README whose words these checks hold (each must be
# there, so that a tour changed without its checks fails here)
sub ran {
    my ($what, $re) = @_;
    my @found = grep { $_->{readme} =~ $re } @ran;
    ok(@found, "the tour has $what") or diag join "\n", map { $_->{readme} } @ran;
    return @found;
}

# "1,234,567" as a number
sub n { my ($text) = @_; $text =~ tr/,//d; return $text }
# A rate the table shows (whole msgs/s) against the file's (one decimal,
# both rounded from one figure)
sub rate_is {
    my ($shown, $file, $name) = @_;
    ok(defined $shown && abs($shown - $file) <= 0.55, "$name (table $shown, file $file)");
}

# The table's blocks: a size's header, its rows, and the lines under them
sub blocks {
    my ($out) = @_;
    my (@blocks, $block);
    for (split /\n/, $out) {
        if (/^(\S+) \((\w+), (\w+)\)\s+size (\d+) B\s+window ([\d.]+) s(.*)$/) {
            push @blocks, $block = { topology => $1, mode => $3, size => $4,
                window => $5, title => $6, rows => [], notes => [] };
        } elsif ($block && /^\s+hop\s+from -> to/) {
            $block->{header} = $_;
        } elsif ($block && $block->{header} && @{ $block->{notes} } == 0 &&
                 /^\s*(\d+)\s+(\S+) -> (\S+)\s+(\S+)\s+([\d,]+)\s+(.*)$/) {
            my %row = (hop => $1, from => $2, to => $3, transport => $4, rate => n($5));
            my $rest = $6;
            $row{spread} = $1 if $rest =~ s/^±([\d.]+%[*!]*)\s+//;
            $rest =~ s/^\([^)]*\)\s+//;
            my $topics = $block->{header} =~ /expected selectivity/;
            my $re = $topics
                ? qr/^([\d.]+)\s+([\d,]+)\s+([\d.]+)\s+([\d,]+)\s+([\d.]+)%\s+(\S+ \/ \S+)(.*)$/
                : qr/^([\d.]+)\s+()()([\d,]+)\s+([\d.]+)%\s+(\S+ \/ \S+)(.*)$/;
            @row{qw(mbps expected selectivity lost lost_pct cpu flags)} = $rest =~ $re
                or next;
            $row{$_} = n($row{$_}) for qw(expected lost);
            push @{ $block->{rows} }, \%row;
        } elsif ($block && $block->{header} && /^\s{6}\S/) {
            push @{ $block->{notes} }, $_;
        } elsif (/^\S/ || /^$/) {
            undef $block if $block && @{ $block->{rows} };
        }
    }
    return @blocks;
}

# results.csv's rows of a size (a repeat, or the medians)
sub rows_of {
    my ($dir, $size, $repeat) = @_;
    return grep { $_->{size} == $size && $_->{repeat} eq $repeat }
        @{ csv("$dir/results.csv")->{rows} };
}

# --- every command: progress within its total, stalls within the window
for my $r (@ran) {
    my @counts = $r->{err} =~ /done \((\d+)(?:\/| of at most )(\d+) trials\)/g;
    while (my ($done, $total) = splice @counts, 0, 2) {
        cmp_ok($done, '<=', $total, "'$r->{readme}': progress $done of $total trials");
    }
    if (my ($last) = $r->{err} =~ /.*done (\(\d+[^)]*\))/s) {
        like($last, qr/^\((\d+)\/\1 trials\)$/,
             "'$r->{readme}': the last progress line counts what ran: $last");
    }
    while ($r->{err} =~ /stalled: \d+ msgs\/s for ([\d.]+) s of its ([\d.]+) s window/g) {
        cmp_ok($1, '<=', $2, "'$r->{readme}': a stall of $1 s in its $2 s window");
    }
}

# --- A run, and how to read its table: one block per size, one row per
# hop (hop 1 from the publisher), msgs/s and lost as results.csv has
# them, one window for every hop; nothing lost in capacity mode; a hop
# that took more than came into its broker says so
for my $r (ran('a plain run', qr/^\.\/hopbench run topologies\/proxy\.cfg --sizes \d+ --duration \S+$/)) {
    my @sizes = $r->{args} =~ /--sizes (\S+)/ ? split(/,/, $1) : ();
    my @blocks = blocks($r->{out});
    is(scalar @blocks, scalar @sizes, "'$r->{readme}': one block per size");
    for my $block (@blocks) {
        my @csv = rows_of($r->{dir}, $block->{size}, 1);
        is(scalar @{ $block->{rows} }, scalar @csv, "size $block->{size}: one row per hop");
        is($block->{rows}[0]{from}, 'pub', 'hop 1 starts at the publisher');
        my %seconds = map { $_->{seconds} => 1 } @csv;
        is(scalar keys %seconds, 1, 'one window for every hop');
        is(sprintf('%.2f', (keys %seconds)[0] // 0), $block->{window}, 'the window the header says');
        for my $i (0 .. $#csv) {
            my ($row, $c) = ($block->{rows}[$i], $csv[$i]);
            rate_is($row->{rate}, $c->{msgs_per_sec}, "hop $c->{hop}: msgs/s as results.csv");
            is($c->{lost}, 0, "hop $c->{hop}: nothing lost (mode = capacity)");
            is($row->{lost}, $c->{lost}, "hop $c->{hop}: lost as results.csv");
        }
        my ($into, $ahead) = ($block->{rows}[0]{rate});
        $ahead = $_ for grep { $_->{hop} > 1 && $_->{rate} > $into } @{ $block->{rows} };
        my $said = grep { /^\s+hop \d+ took [\d,]+ msgs\/s, more than came into broker/ } @{ $block->{notes} };
        is($said ? 1 : 0, $ahead ? 1 : 0,
           'a hop that took more than came into the broker says so, and only then');
    }
}

# --- What a flooding publisher measures: rows marked HWM are
# results.csv's hwm_bound = 1, and the block says what sets them
for my $r (ran('a flood run', qr/mode=flood/)) {
    for my $block (blocks($r->{out})) {
        my @csv = rows_of($r->{dir}, $block->{size}, 1);
        for my $i (0 .. $#csv) {
            is($block->{rows}[$i]{flags} =~ /\bHWM\b/ ? 1 : 0, $csv[$i]{hwm_bound},
               "flood hop $csv[$i]{hop}: HWM in the table as hwm_bound in results.csv");
        }
        my $hwm = grep { $_->{hwm_bound} } @csv;
        is((grep { /^\s+HWM: this rate is set by the HWM/ } @{ $block->{notes} }) ? 1 : 0,
           $hwm ? 1 : 0, 'the HWM line under the block where a row is HWM bound');
    }
}

# --- The sustainable rate: the rate offered is search_summary.csv's
# found, the rows are the confirmation's (results.csv), and the counts of
# trials are search.csv's
for my $r (ran('a search', qr/mode=search/)) {
    my $summary = csv("$r->{dir}/search_summary.csv")->{rows}[0] // {};
    my @trials = map { $_->{trial} } @{ csv("$r->{dir}/search.csv")->{rows} };
    my ($wall) = $r->{out} =~ /wall time of the search: .*?, (\d+) trials/;
    is($wall, max(@trials), 'search: the trials of its wall time line, as search.csv');
    if ($r->{out} =~ /^\s+search: ([\d,]+) msgs\/s offered \((.*?)\), confirmed for ([\d.]+) s (\(.*?\)); bottleneck .*?; settled after (\d+) trials/m) {
        my ($offered, $confirm, $rows, $settled) = (n($1), $3, $4, $5);
        rate_is($offered, $summary->{found}, 'search: the rate offered is search_summary.csv found');
        is($confirm, '0.2', 'search: confirmed for search_confirm seconds');
        is($rows, '(the rows: what each hop took in that window)',
           'search: the line says what its rows are');
        is($settled, $summary->{trials}, 'search: settled after search_summary.csv trials');
        my ($block) = blocks($r->{out});
        my @csv = grep { $_->{mode} eq 'search' } @{ csv("$r->{dir}/results.csv")->{rows} };
        for my $i (0 .. $#csv) {
            rate_is($block->{rows}[$i]{rate}, $csv[$i]{msgs_per_sec},
                    "search hop $csv[$i]{hop}: msgs/s is what it took in the confirmation (results.csv)");
        }
    } else {
        like($r->{out}, qr/^\s+search: no (rate held|offered rate passed)/m,
             'search: no rate held, and it says so');
    }
}

# --- Topics: each row says what the link should have carried
# (expected) and its share of the publisher's traffic (selectivity);
# lost = expected - received
for my $r (ran('the topics run', qr/topics\.cfg/)) {
    my @blocks = blocks($r->{out});
    ok(@blocks, 'topics: blocks');
    for my $block (@blocks) {
        like($block->{header}, qr/\bexpected selectivity\b/,
             "topics size $block->{size}: expected and selectivity columns");
        my @csv = rows_of($r->{dir}, $block->{size}, 1);
        is(scalar @{ $block->{rows} }, scalar @csv, 'topics: a row per link');
        for my $i (0 .. $#csv) {
            my ($row, $c) = ($block->{rows}[$i], $csv[$i]);
            is($row->{expected}, $c->{expected}, "$c->{to}: expected as results.csv");
            ok(abs($row->{selectivity} - $c->{selectivity}) <= 0.0000505,
               "$c->{to}: selectivity $row->{selectivity} as results.csv ($c->{selectivity})");
            is($c->{lost}, $c->{expected} - $c->{received}, "$c->{to}: lost = expected - received");
        }
        ok((grep { $_->{selectivity} < 1 } @{ $block->{rows} }),
           'topics: some subscriber takes a share of the topics');
    }
}

# --- --quiet: no progress on stderr, the tables on stdout, as README
# and --help say
my ($rc, $help) = hopbench('--help');
like($help, qr/--quiet\s+no progress on stderr.*the table still\s+goes to\s+stdout/s,
     '--help: --quiet says the table still goes to stdout');
like($readme, qr/`--quiet`: no progress on stderr; the tables still go to stdout/,
     'README says what --quiet does');
for my $r (ran('runs with --quiet', qr/--quiet/)) {
    unlike($r->{err}, qr/done \(|results in/, "'$r->{readme}': no progress on stderr");
    ok(scalar blocks($r->{out}), "'$r->{readme}': the table on stdout");
}
for my $r (ran('a sweep', qr/--sweep transport=(\S+)/)) {
    my ($values) = $r->{args} =~ /--sweep \w+=(\S+)/;
    my ($sizes) = $r->{args} =~ /--sizes (\S+)/;
    is(scalar blocks($r->{out}), (split /,/, $values) * (split /,/, $sizes),
       'the sweep: a block per combination and size');
}

# --- plot (gnuplot, PNG) and report (report.html)
for my $r (ran('plot', qr/^\.\/hopbench plot /)) {
    my ($dir) = $r->{args} =~ /^plot (\S+)/;
    ok(glob("$dir/*.png"), "plot: PNG charts in $dir");
}
for my $r (ran('report', qr/^\.\/hopbench report /)) {
    my ($dir) = $r->{args} =~ /^report (\S+)/;
    ok(-s "$dir/report.html", "report: $dir/report.html");
}

# --- Repeats: each hop's figure is the median, ± its interval's end
# farther from it (results.csv's ci_low, ci_high), '*' where the
# repeats fall short of the confidence, and the line under the block
# says ± is then min to max
for my $r (ran('repeats', qr/--repeat 5/)) {
    my ($n) = $r->{args} =~ /--repeat (\d+)/;
    for my $block (blocks($r->{out})) {
        like($block->{title}, qr/median of $n repeats, ±: its 95% interval/, 'repeats: the header says what ± is');
        my @csv = rows_of($r->{dir}, $block->{size}, 'median');
        my $short = 0;
        for my $i (0 .. $#csv) {
            my ($row, $c) = ($block->{rows}[$i], $csv[$i]);
            rate_is($row->{rate}, $c->{msgs_per_sec}, "hop $c->{hop}: the median");
            my $x = 100 * max($c->{msgs_per_sec} - $c->{ci_low}, $c->{ci_high} - $c->{msgs_per_sec})
                / $c->{msgs_per_sec};
            my ($shown, $star) = ($row->{spread} // '') =~ /^([\d.]+)%(\*?)/;
            ok(defined $shown && abs($shown - $x) < 0.051,
               "hop $c->{hop}: ±$row->{spread} is the interval's farther end (" . sprintf('%.1f', $x) . ' %)');
            is($star ? 1 : 0, $c->{ci_coverage} < 0.95 ? 1 : 0, "hop $c->{hop}: '*' where the coverage is short");
            $short ||= $star;
        }
        is((grep { /^\s+\*: $n repeats give at most a [\d.]+% interval: ± is then min to max/ } @{ $block->{notes} }) ? 1 : 0,
           $short ? 1 : 0, 'repeats: the line under the block says what * means');
    }
}

# --- System calls: under each size block its calls, with the profile's
# cost first; a 16 KiB message costs the broker's I/O thread a sendto or
# more (two, README says: libzmq batches 8 KiB), at 64 B one carries
# many (of a few hundred messages at least: fewer are the machine's)
for my $r (ran('a syscalls profile', qr/--profile syscalls/)) {
    my @sizes = split /,/, ($r->{args} =~ /--sizes (\S+)/)[0];
    my @cost = $r->{out} =~ /^\s+system calls in the window \(profile = syscalls\), traced in a twin of each repeat: it ran at [\d.]+ x the untraced rate/mg;
    is(scalar @cost, scalar @sizes, 'syscalls: a block under each size, its cost first');
    my %sendto = map { $_->{size} => $_ }
        grep { $_->{stage} eq 'broker' && $_->{thread} =~ /^ZMQbg\/IO/ && $_->{syscall} eq 'sendto' }
        @{ csv("$r->{dir}/syscalls.csv")->{rows} };
    ok($sendto{$_}, "syscalls: the broker's sendto at $_ B") for 64, 16384;
  SKIP: {
        my $few = grep { ($sendto{$_}{messages} // 0) < 300 } 64, 16384;
        skip('the broker handled fewer than 300 messages in a traced window: a busy machine', 2) if $few;
        # (the calls traced in the window and the messages counted in it
        # are read at edges a busy machine sets apart: 0.91 was seen of
        # what is two, so the bound is half of one, far above 64 B's)
        cmp_ok($sendto{16384}{calls_per_msg}, '>=', 0.5, 'syscalls: at 16 KiB about a sendto or more a message');
        cmp_ok($sendto{64}{calls_per_msg}, '<', 0.5, 'syscalls: at 64 B a sendto carries several');
    }
}

# --- make run: installs what the tour uses (plot: gnuplot; README's
# `man -l hopbench.1`: man-db; this test: perl) and builds the man pages
{
    local @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL)};
    my $dry = `make -n --no-print-directory run 2>&1`;
    my %installs = map { $_ => 1 } map { split ' ' } $dry =~ /^tests\/install-debs (.*)$/mg;
    for my $deb (qw(gnuplot-nox man-db perl)) {
        ok($installs{$deb}, "make run installs $deb, which the tour uses");
    }
    my ($said) = $readme =~ /`make run` installs the packages it needs with `apt-get` \((.*?)\)/s;
    for my $deb (sort keys %installs) {
        like($said // '', qr/\b\Q$deb\E\b/, "README says make run installs $deb");
    }
    like($dry, qr/^make .*\bhopbench\.1\b.*\bhopbench-topology\.5\b/m,
         'make run builds the man pages README says it builds');
}

# --- Progress never passes its total: a search where nothing passes
# (p99 under 1 us) takes its few trials more than search_trials
{
    my ($rc, $out, $err) = hopbench(split(' ', 'run topologies/proxy.cfg --set mode=search'
        . ' --sizes 64,128 --set p99_us=1 --set search_trials=4 --set search_trial=0.1'
        . " --set search_confirm=0.2 --set warmup=0.05 --output $tmp/p99"));
    is($rc, 0, 'a search no rate passes: exit 0') or diag $err;
    my @lines = $err =~ /(size \d+ done \(.*?\))/g;
    is(scalar @lines, 2, 'a progress line per size') or diag $err;
    like($lines[0] // '', qr/^size 64 done \((\d+) of at most (\d+) trials\)$/,
         'the first size: a count of at most, the plan being a bound');
    my ($done, $total) = ($lines[0] // '') =~ /\((\d+) of at most (\d+)/;
    ok(defined $done && $done > 5 && $done <= $total,
       'more trials than search_trials + 1, within the total') or diag $err;
    my $ran = () = map { $_->{trial} } grep { $_->{hop} == 1 } @{ csv("$tmp/p99/search.csv")->{rows} };
    like($lines[1] // '', qr/^size 128 done \($ran\/$ran trials\)$/,
         "the last: every trial that ran ($ran), of as many");
}
done_testing();
