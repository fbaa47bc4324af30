#!/usr/bin/perl
# The report page a person reads: the answer first (a run's, a search's,
# a sizing's, a comparison's), its figures the files' own, figure by
# figure; every table narrower than a 1024-px window; charts told apart
# in grey; what a run that did not finish, a machine without gnuplot and
# a comparison of nothing in common make of it.
use strict;
use warnings;
no warnings 'qw';
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Report;
use Test::More;

chdir "$FindBin::Bin/..";
Report::quick(qw(--duration 0.1 --set warmup=0.05 --quiet));
my $chromium = chromium();
my $gnuplot = have('gnuplot');

# hopbench report DIR...: the page's text
sub page { return (report_page(@_))[1] }

# A CSV file's cells by line: {LINE}{COLUMN}; a row's line is its index
# plus 2 (hopbench writes no line breaks inside a field)
my %lines;
sub cell {
    my ($dir, $file, $line, $column) = @_;
    $lines{"$dir/$file"} //= do {
        my $t = csv("$dir/$file");
        my %by;
        $by{ $_ + 2 } = $t->{rows}[$_] for 0 .. $#{ $t->{rows} };
        \%by;
    };
    return $lines{"$dir/$file"}{$line}{$column};
}

# Every figure of the summary is its file's cell (or a sum of them)
sub summary_true {
    my ($what, $html, $dir) = @_;
    my ($summary) = $html =~ /<section id="summary">(.*?)<\/section>/s;
    ok($summary, "$what: a summary") or return;
    my ($n, $bad) = (0, 0);
    while ($summary =~ /<span class="fig" data-file="([^"]+)" data-line="(\d+)" data-c="([^"]+)">([^<]*)<\/span>/g) {
        my ($file, $line, $column, $shown) = ($1, $2, $3, $4);
        my $want = cell($dir, $file, $line, $column) // '';
        $want = '-' if $want eq '';
        $n++;
        $bad++, diag "$file:$line $column: page '$shown', file '$want'" if $shown ne $want;
    }
    while ($summary =~ /data-file="([^"]+)" data-sum="([^"]+)" data-lines="([\d ]*)">([^<]*)</g) {
        my ($file, $column, $lines, $shown) = ($1, $2, $3, $4);
        my $sum = 0;
        $sum += cell($dir, $file, $_, $column) for split ' ', $lines;
        (my $number = $shown) =~ s/,//g;
        $n++;
        $bad++, diag "$file $column summed: page $shown, file $sum" if $number != $sum;
    }
    ok($n > 0, "$what: the summary shows figures ($n)");
    is($bad, 0, "$what: each is its file's");
    my $first_table = index($html, '<table class="sort');
    ok(index($html, '<section id="summary">') < $first_table,
       "$what: the summary comes before the first table");
    ok(index($html, '<section id="summary">') < index($html, 'id="machine"')
       && $html =~ /id="machine">.*?<details>/s, "$what: the machine last, folded");
}

# Every cell of the page's tables (data-c, data-line) is its file's
sub tables_true {
    my ($what, $html, $dir) = @_;
    my ($n, $bad) = (0, 0);
    my @sections = $html =~ /<section id="(\w+)">(.*?)<\/section>/gs;
    while (my ($id, $body) = splice @sections, 0, 2) {
        my ($file) = $body =~ /<p class="src">from <code>([\w.]+\.csv)<\/code>/ or next;
        next if $id eq 'charts';
        # a per-hop row names its line once; a generic cell its own
        while ($body =~ /<tr class="hop[^"]*"[^>]*data-line="(\d+)">(.*?)<\/tr>/gs) {
            my ($line, $row) = ($1, $2);
            while ($row =~ /<td data-c="(\w+)"[^>]*>([^<]*)<\/td>/g) {
                $n++;
                my $want = cell($dir, $file, $line, $1) // '';
                $bad++, diag "$file:$line $1: page '$2', file '$want'" if $2 ne $want;
            }
        }
        while ($body =~ /data-c="(\w+)" data-line="(\d+)"[^>]*>([^<]*)</g) {
            $n++;
            my $want = cell($dir, $file, $2, $1) // '';
            $bad++, diag "$file:$2 $1: page '$3', file '$want'" if $3 ne $want;
        }
    }
    ok($n > 0, "$what: the tables' cells ($n)");
    is($bad, 0, "$what: each is its file's");
}

# Each line's steps of timeline.csv as one time-weighted mean over the
# window, and where its last step ends: {KEY} = [end, mean], KEY the
# row's columns named
sub window_means {
    my ($dir, @by) = @_;
    my (%sum, %end);
    for my $row (@{ csv("$dir/timeline.csv")->{rows} }) {
        my $key = join ' ', map { $row->{$_} } @by;
        $sum{$key} += $row->{msgs_per_sec} * ($row->{seconds} - ($end{$key} // 0));
        $end{$key} = $row->{seconds};
    }
    return { map { ($_ => [$end{$_}, $end{$_} ? $sum{$_} / $end{$_} : 0]) } keys %end };
}

# A chart's data file (hopbench plot's, the page's the same) as its
# blocks: [[NAME, [[x, y], ...]], ...]
sub chart_blocks {
    my ($file) = @_;
    my @blocks;
    for (split /\n/, Hopbench::slurp($file)) {
        if (/^# (hop .*)/) { push @blocks, [$1, []] }
        elsif (/^([\d.]+) ([\d.]+)$/ && @blocks) { push @{ $blocks[-1][1] }, [$1, $2] }
    }
    return @blocks;
}

# --- a run of two sizes, three repeats: median rows ---
my $run = run_dir('run', qw(topologies/proxy.cfg --sizes 64,1024 --repeat 3));
my $html = page('run', $run);
summary_true('run', $html, $run);
tables_true('run', $html, $run);
like($html, qr/what the pipeline carried:.*?<th>size<\/th><th>run<\/th><th>last hop<\/th><th>lost<\/th><th>slowest hop<\/th><th>flags<\/th>/s,
     'run: the summary says what each column is');
my @sizes = $html =~ /<tr><td><span class="fig" data-file="results\.csv" data-line="\d+" data-c="size">(\d+)</g;
is("@sizes", '64 1024', 'run: a summary row per size');

# rate over time: each hop's steps in timeline.csv cover its window, and
# their time-weighted mean is the hop's msgs/s in results.csv (the same
# counter snapshots; the file's rounding apart)
{
    my (%sum, %end);
    for my $row (@{ csv("$run/timeline.csv")->{rows} }) {
        my $key = "$row->{size} $row->{repeat} $row->{hop}";
        $sum{$key} += $row->{msgs_per_sec} * ($row->{seconds} - ($end{$key} // 0));
        $end{$key} = $row->{seconds};
    }
    my ($n, $bad) = (0, 0);
    for my $row (grep { $_->{repeat} ne 'median' } @{ csv("$run/results.csv")->{rows} }) {
        my $key = "$row->{size} $row->{repeat} $row->{hop}";
        $n++;
        my $mean = $end{$key} ? $sum{$key} / $end{$key} : 0;
        next if $end{$key} && abs($end{$key} - $row->{seconds}) < 0.001
          && abs($mean - $row->{msgs_per_sec}) <= 0.002 * $row->{msgs_per_sec};
        $bad++;
        diag "$key: timeline to $end{$key} s, mean $mean; results $row->{seconds} s, $row->{msgs_per_sec}";
    }
    ok($n == 12 && $bad == 0, "rate over time: $n hops and repeats, each its window's rate over its window");
    $html = Hopbench::slurp("$run/report.html");
    SKIP: {
        skip 'no gnuplot on PATH', 1 unless $gnuplot;
        like($html, qr/plot<\/code>'s proxy-timeline-64B\.png/, 'rate over time: charted');
    }
}

# latency quantiles where latency was measured (a paced run)
SKIP: {
    skip 'no gnuplot on PATH', 3 unless $gnuplot;
    my $paced = run_dir('paced', qw(topologies/proxy.cfg --sizes 64 --set rate=20000));
    my $page = page('paced', $paced);
    like($page, qr/plot<\/code>'s proxy-latency-quantiles\.png/, 'latency: a quantile chart');
}

# --- a search: NDR per size, who set it ---
my $search = run_dir('search', qw(topologies/direct.cfg --sizes 1024 --set mode=search
    --set search_trial=0.1 --set search_confirm=0.2 --set search_trials=4));
$html = page('search', $search);
summary_true('search', $html, $search);
tables_true('search', $html, $search);
like($html, qr/the sustainable rate:/, 'search: the summary is the rate found');
like($html, qr/data-c="set_by">(pipeline|machine|publishers)</, 'search: and who set it');

# a search's rate over time: every trial of search.csv has its steps in
# timeline.csv (repeat the search, trial the trial), each hop's
# time-weighted mean its received_per_sec; the chart
# draws the trials that confirmed a rate, each step the file's
{
    my $means = window_means($search, qw(size repeat trial hop));
    my ($n, $bad, %confirmed) = (0, 0);
    for my $row (@{ csv("$search/search.csv")->{rows} }) {
        my $key = "$row->{size} $row->{repeat} $row->{trial} $row->{hop}";
        $confirmed{"$row->{repeat} $row->{trial}"} = 1
          if $row->{phase} eq 'confirm' && $row->{verdict} eq 'pass';
        my ($end, $mean) = @{ $means->{$key} // [0, 0] };
        $n++;
        # (window is the length asked for: a busy machine's ran longer,
        # and its rate is over the window it had, the steps' end)
        next if $end && abs($mean - $row->{received_per_sec}) <= 0.002 * $row->{received_per_sec} + 0.1;
        $bad++;
        diag "search $key: timeline to $end s, mean $mean; search.csv $row->{window} s, $row->{received_per_sec}";
    }
    ok($n >= 4 && $bad == 0 && keys %$means == $n,
       "search rate over time: $n trials' hops, each its window's rate (" . scalar(keys %$means) . ' in timeline.csv)');
    SKIP: {
        skip 'no gnuplot on PATH', 3 unless $gnuplot;
        # a busy machine can fail every trial: no rate, no trial to draw
        skip 'the search confirmed no rate (the machine)', 3 unless %confirmed;
        like($html, qr/plot<\/code>'s direct-timeline-1024B\.png/, 'search rate over time: charted');
        hopbench('plot', $search);
        my @blocks = chart_blocks("$search/plot-timeline-direct-1024B.dat");
        my %steps;
        for my $row (@{ csv("$search/timeline.csv")->{rows} }) {
            push @{ $steps{"hop $row->{hop} $row->{from}->$row->{to}, trial $row->{trial}"} },
              [$row->{seconds}, $row->{msgs_per_sec}];
        }
        my @drawn = map { $_->[0] } @blocks;
        my @want = map { "hop 1 pub->sub, trial " . (split ' ', $_)[1] } sort keys %confirmed;
        is("@drawn", "@want", "search rate over time: the confirming trials drawn (@want)");
        my $wrong = grep { my $b = $_; my $rows = $steps{ $b->[0] } // [];
            @$rows != @{ $b->[1] } || grep { $rows->[$_][0] != $b->[1][$_][0]
              || $rows->[$_][1] != $b->[1][$_][1] } 0 .. $#$rows } @blocks;
        is($wrong, 0, 'search rate over time: each point is its timeline.csv row');
    }
}

# --- a sizing: the target, the answer or the best, and its evidence ---
my $size = tmp();
my ($rc, $stdout, $err) = hopbench(qw(size topologies/proxy.cfg --sizes 1024
    --set search_trial=0.2 --set size_window=0.1 --set size_goal_seconds=0.6
    --set size_budget=3 --prove 1 --quiet --target rate=2000,p99=1s --output), $size);
ok($rc == 0 || $rc == 3 || $rc == 4, "sizing: exit $rc (an answer, none, or undecided)") or diag $err;
$html = page('sizing', $size);
summary_true('sizing', $html, $size);
my ($sum) = $html =~ /<section id="summary">(.*?)<\/section>/s;
like($sum, qr/<b>target:<\/b> <span class="fig" data-file="sizing\.csv" data-line="2" data-c="target_per_sec">2000</,
     'sizing: the target first');
like($sum, qr/<b>answer at <span[^>]*data-c="size">1024<\/span> B:<\/b>/, 'sizing: the answer at each size');
like($sum, qr/<th>capacity<\/th><td><span[^>]*data-c="capacity_per_sec">[\d.]+<\/span> \[<span[^>]*data-c="capacity_low">/,
     'sizing: the capacity with its interval');
like($sum, qr/<th>cost<\/th>.*data-c="busy_cores"/s, 'sizing: cost and busy cores');
ok(index($html, 'id="sizing"') < index($html, 'id="results"'),
   'sizing: the candidates before the trials\' rows');

# a sizing's latency: each criterion's windows at the target merged into
# an "all" row (its samples theirs summed), charted as quantiles; its
# rate over time: each candidate's proof (else its flat-out trials), the
# windows end to end, each point a row of timeline.csv
{
    my (%samples, %all);
    for my $row (@{ csv("$size/latency.csv")->{rows} }) {
        my $key = "$row->{sweep_candidate} $row->{sweep_criterion}";
        if ($row->{repeat} eq 'all') { $all{$key} = $row->{samples} }
        else { $samples{$key} += $row->{samples} }
    }
    my @wrong = grep { ($all{$_} // -1) != $samples{$_} } keys %samples;
    # no p99 windows when capacity already failed (a busy machine's)
    my $timed = grep { $_->{sweep_criterion} =~ /^(p99|proof)$/ } @{ csv("$size/results.csv")->{rows} };
    ok(($timed ? keys %samples : 1) && !@wrong, 'sizing latency: an "all" row per criterion, its samples its windows\' ('
       . join(', ', map { "$_: $all{$_}" } sort keys %all) . ')') or diag "wrong: @wrong";
    SKIP: {
        skip 'no gnuplot on PATH', 4 unless $gnuplot;
        if ($timed) {
            like($html, qr/plot<\/code>'s proxy_at_1024_B-latency-quantiles\.png/, 'sizing latency: a quantile chart');
        } else {
            pass('sizing latency: no window at the target (capacity failed): no quantile chart');
        }
        my %proven = map { ($_->{sweep_candidate} => 1) }
          grep { $_->{sweep_criterion} eq 'proof' } @{ csv("$size/timeline.csv")->{rows} };
        my (%want, %last, %offset);
        for my $row (@{ csv("$size/timeline.csv")->{rows} }) {
            my $c = $row->{sweep_candidate};
            next unless $row->{sweep_criterion} eq ($proven{$c} ? 'proof' : 'capacity');
            my $line = "$c hop $row->{hop} $row->{from}->$row->{to}";
            $offset{$line} += $last{$line}[1] if $last{$line} && $last{$line}[0] ne $row->{repeat};
            $last{$line} = [$row->{repeat}, $row->{seconds}];
            push @{ $want{$line} }, [sprintf('%.6f', $offset{$line} // 0) + $row->{seconds}, $row->{msgs_per_sec}];
        }
        my $what = $proven{1} ? 'proof' : 'capacity';
        like($html, qr/plot<\/code>'s proxy__candidate-1_criterion-${what}_-timeline-1024B\.png/,
             "sizing rate over time: candidate 1's $what charted");
        hopbench('plot', $size);
        my @blocks = chart_blocks("$size/plot-timeline-proxy__candidate-1_criterion-${what}_-1024B.dat");
        my $points = 0;
        my $wrong = grep { my $b = $_; my $rows = $want{"1 $b->[0]"} // [];
            $points += @$rows;
            @$rows != @{ $b->[1] } || grep { abs($rows->[$_][0] - $b->[1][$_][0]) > 2e-6
              || $rows->[$_][1] != $b->[1][$_][1] } 0 .. $#$rows } @blocks;
        ok(@blocks == 2 && $points > 0 && $wrong == 0,
           "sizing rate over time: a line per hop, $points points, each its timeline.csv row end to end");
    }
}

# --- two runs compared: what differs, what changed ---
my $other = run_dir('forwarder', qw(topologies/proxy.cfg --sizes 64,1024 --repeat 3
    --set engine=forwarder));
my $cmp = tmp() . '/cmp.html';
($rc, $stdout, $err) = hopbench('report', $run, $other, '-o', $cmp);
is($rc, 0, 'compare: exit 0') or diag $err;
$html = Hopbench::slurp($cmp);
ok(index($html, 'id="compare-summary"') < index($html, '<table class="sort'),
   'compare: the summary before the tables');
like($html, qr/<li>proxy = broker: engine = &quot;steerable&quot; \(base\), engine = &quot;forwarder&quot; \(other\)<\/li>/,
     'compare: the setting that differs, engine');
my ($csv_rc, $csv) = hopbench('compare', $run, $other, '--format', 'csv');
my $compare_csv = tmp() . '/compare.csv';
write_file($compare_csv, $csv);
my %sig = map { ("$_->{size} $_->{hop} $_->{metric}" => $_->{delta}) }
  grep { $_->{significant} eq '1' } @{ csv($compare_csv)->{rows} };
my @changes = $html =~ /<li class="change" data-size="(\d+)" data-hop="(\w+)" data-metric="([^"]+)" data-delta="([-\d.]+)">/g;
my $wrong = 0;
while (my ($size, $hop, $metric, $delta) = splice @changes, 0, 4) {
    $wrong++ unless defined $sig{"$size $hop $metric"} && $sig{"$size $hop $metric"} == $delta;
}
is($wrong, 0, 'compare: each change listed is a significant row of compare, its delta');
like($html, qr/what changed<\/b>, beyond the noise/, 'compare: what changed, said');

# a comparison of nothing in common exits as compare does: 1
my $apart = run_dir('apart', qw(topologies/direct.cfg --sizes 128));
($rc, $stdout, $err) = hopbench('report', $run, $apart, '-o', tmp() . '/apart.html');
my ($crc) = hopbench('compare', $run, $apart);
is($rc, $crc, "compare of nothing in common: report exits as compare ($crc)");
like($err, qr/nothing to compare/, '...and says why');

# --- a sweep: each combination's settings (results.csv's cells) and
# the topology it ran (config-N.cfg), each drawing as its heading says ---
my $sweep = run_dir('sweep', qw(topologies/proxy.cfg --sizes 64
    --sweep transport=tcp,ipc --sweep engine=steerable,forwarder));
{
    my $page = page('sweep', $sweep);
    my ($topology) = $page =~ /<section id="topology">(.*?)<\/section>/s;
    my ($n, $bad) = (0, 0);
    while (($topology // '') =~ /data-c="(\w+)" data-line="(\d+)"[^>]*>([^<]*)</g) {
        $n++;
        my $want = cell($sweep, 'results.csv', $2, $1) // '';
        $bad++, diag "results.csv:$2 $1: page '$3', file '$want'" if $3 ne $want;
    }
    ok($n == 8 && $bad == 0, "sweep: the table's settings are results.csv's ($n cells)");
    my @files = map { -e "$sweep/config-$_.cfg" ? "config-$_.cfg" : () } 2 .. 5;
    is("@files", 'config-2.cfg config-3.cfg config-4.cfg', 'sweep: each other combination\'s config-N.cfg');
    my @drawn = ($topology // '') =~ /<h3 id="topology-\d+">combination (\d+): transport=(\w+) engine=(\w+)<\/h3>\n<pre class="tree">(.*?)<\/pre>/gs;
    my ($trees, $wrong) = (0, 0);
    while (my ($c, $transport, $engine, $tree) = splice @drawn, 0, 4) {
        $trees++;
        $wrong++, diag "combination $c: $tree" unless $tree =~ /hop 1 $transport --&gt; broker \(proxy, $engine\)/
          && $tree =~ /hop 2 $transport --&gt; sub/;
    }
    ok($trees == 4 && $wrong == 0, "sweep: $trees drawings, each the topology its combination ran");
}

# --- a run that did not finish: a true page, said first ---
{
    my $out = tmp() . '/int';
    my $pid = fork;
    if ($pid == 0) {
        open STDOUT, '>', '/dev/null';
        open STDERR, '>', "$out.err";
        exec './hopbench', qw(run topologies/proxy.cfg --sizes 64,1024,4096,16384
            --duration 0.4 --report --quiet --output), $out;
    }
    my $until = time + 20;
    sleep 1 until -s "$out/results.csv" && csv("$out/results.csv")->{rows}[0] || time > $until;
    kill 'INT', $pid;
    waitpid $pid, 0;
    my $page = -e "$out/report.html" ? Hopbench::slurp("$out/report.html") : '';
    ok($page, 'interrupted: a page');
    like($page, qr/<p class="warn status">This run did not finish: interrupted by SIGINT\./,
         'interrupted: said first');
    unlike($page, qr/interrupted by SIGINT while reading/, 'interrupted: the topology read whole');
    like($page, qr/<pre class="tree">proxy: 3 stages/, 'interrupted: the topology drawn');
    tables_true('interrupted', $page, $out);
}

# --- without gnuplot: the page says charts need it, and points nowhere ---
{
    my $bin = tmp();
    symlink '/usr/bin/timeout', "$bin/timeout";
    local $ENV{PATH} = $bin;
    ($rc, $stdout, $err) = hopbench('report', $run, '-o', "$bin/page.html");
    is($rc, 0, 'no gnuplot: exit 0') or diag $err;
    my $page = Hopbench::slurp("$bin/page.html");
    like($page, qr/Charts need gnuplot, which is not on PATH: install the Debian package gnuplot-nox/,
         'no gnuplot: the page says charts need it');
    unlike($page, qr/hopbench-report-/, 'no gnuplot: and names no scratch directory');
}

# --- charts in grey: each line its own dash, no key over the plot ---
SKIP: {
    skip 'no gnuplot on PATH', 2 unless $gnuplot;
    my $script = Hopbench::slurp("$run/report.html");
    my ($svg) = $script =~ /(<svg\b.*?<\/svg>)/s;
    my %dashes = map { $_ => 1 } ($svg // '') =~ /stroke-dasharray=['"]([^'"]+)['"]/g;
    delete $dashes{'2,4'}; # the grid's
    ok(keys %dashes >= 1, 'grey: the second line is dashed (' . join(' ', sort keys %dashes) . ')');
    my ($rc2) = hopbench('plot', $run);
    like(Hopbench::slurp("$run/plot.gp"), qr/^set key outside right top vertical box$/m,
         'grey: the key beside the plot, not on it');
}

# --- every link lands where it says (a comparison's, each its run's) ---
for my $page ("$run/report.html", "$search/report.html", "$size/report.html", $cmp,
              "$sweep/report.html") {
    my $text = Hopbench::slurp($page);
    my %ids = map { $_ => 1 } $text =~ /\bid="([^"]+)"/g;
    my @links = $text =~ /href="#([^"]+)"/g;
    my @lost = grep { !$ids{$_} } @links;
    ok(@links && !@lost, "links land: $page (" . scalar(@links) . " links"
       . (@lost ? ", lost: @lost" : '') . ')');
}
like(Hopbench::slurp($cmp), qr/href="#run2-results"/, "links land: run 2's to run 2's sections");

# --- every table fits a 1024-px window (Chromium measures them) ---
SKIP: {
    skip 'no chromium on PATH', 4 unless $chromium;
    my $wrap = tmp() . '/fit.html';
    for my $page ("$run/report.html", "$search/report.html", "$size/report.html", $cmp) {
        write_file($wrap, qq(<!DOCTYPE html><body><pre id="r">waiting</pre>
<iframe id="f" src="file://$page" width="1024" height="800"></iframe>
<script>document.getElementById('f').onload=function(){
 var d=this.contentDocument,w=d.documentElement.clientWidth,o=[];
 d.querySelectorAll('table').forEach(function(t){
  var r=t.getBoundingClientRect().right;if(r>w+1)o.push(Math.round(r));});
 document.getElementById('r').textContent='tables '+d.querySelectorAll('table').length+' wider '+o.join(' ')+' of '+w;};
</script></body>));
        my ($dom) = browse($wrap, qw(--allow-file-access-from-files
          --virtual-time-budget=10000 --window-size=1040,900 --dump-dom));
        my ($tables, $wider) = $dom =~ /tables (\d+) wider ([\d ]*) of/;
        ok(defined $tables && $tables > 0 && $wider eq '', "fits 1024 px: $page ("
           . ($tables // 'no answer') . ' tables, none wider)') or diag $dom =~ /(tables.*of \d+)/;
    }
}
done_testing();
