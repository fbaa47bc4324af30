#!/usr/bin/perl
# hopbench report: one HTML page of a real run (a proxy, a tree, topics, a
# search, two runs compared), held against its CSV files, then loaded in
# headless Chromium: no console error, no request outside the file, the
# DOM's rows, flags and charts, a screenshot.
use strict;
use warnings;
no warnings 'qw'; # sizes are written 64,1024
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Report;
use Test::More;

chdir "$FindBin::Bin/..";
plan skip_all => 'no gnuplot on PATH (Debian: gnuplot-nox; make check installs it)'
  unless have('gnuplot');
my $chromium = chromium();

Report::quick(qw(--duration 0.2 --quiet));

# hopbench report DIR...: the page's path and text, one .html file
sub report {
    my ($what, @dirs) = @_;
    my ($page, $html) = report_page($what, @dirs);
    ok(-f $page && $page =~ /\.html$/, "$what: one .html file ($page)");
    return ($page, $html);
}

# Nothing on the page reaches outside it: http only in the SVGs' xmlns,
# no src= or link, url() only to an id within
sub self_contained {
    my ($what, $html) = @_;
    my @http = $html =~ /(\S*http\S*)/g;
    my @other = grep { !m{^xmlns(:xlink)?=['"]http://www\.w3\.org/(2000/svg|1999/xlink)['"]} } @http;
    is_deeply(\@other, [], "$what: http only in the SVGs' xmlns (" . scalar(@http) . ')');
    unlike($html, qr/\bsrc\s*=|<link\b|\@import/i, "$what: no src=, <link>, \@import");
    my @urls = grep { !/^url\(#/ } $html =~ /(url\([^)]*\))/g;
    is_deeply(\@urls, [], "$what: url() only to ids on the page");
    my %ids;
    $ids{$_}++ for $html =~ /\sid=["']([^"']*)["']/g;
    my @twice = grep { $ids{$_} > 1 } sort keys %ids;
    is_deeply(\@twice, [], "$what: every id once (" . scalar(keys %ids) . ' ids)');
    my @refs = ($html =~ /url\(#([^)]*)\)/g, $html =~ /href=["']#([^"']*)["']/g);
    my @lost = grep { !$ids{$_} } @refs;
    is_deeply(\@lost, [], "$what: every url(#) and href=\"#\" leads to an id (" . scalar(@refs) . ')');
}

# Every <svg> of the page holds a drawing
sub charts_drawn {
    my ($what, $html, $least) = @_;
    my @svgs = $html =~ /(<svg\b.*?<\/svg>)/gs;
    ok(@svgs >= $least, "$what: at least $least charts (" . scalar(@svgs) . ')');
    my @empty = grep { !/<path\b/ || length($_) < 2000 } @svgs;
    is(scalar @empty, 0, "$what: every <svg> has paths in it");
}

# The page's per-hop rows against results.csv: one per row, same figures
sub rows_match {
    my ($what, $html, $dir) = @_;
    my $t = csv("$dir/results.csv");
    my @trs = $html =~ /(<tr class="hop".*?<\/tr>)/gs;
    is(scalar @trs, scalar @{ $t->{rows} }, "$what: a table row per row of results.csv");
    my ($bad, $starved) = (0, 0);
    for my $i (0 .. $#trs) {
        my $row = $t->{rows}[$i] or last;
        my %cell = $trs[$i] =~ /<td data-c="([a-z_]+)"[^>]*>([^<]*)<\/td>/g;
        for my $col (qw(hop size msgs_per_sec mb_per_sec sent received lost
                        from_cpu_ns_per_msg to_cpu_ns_per_msg expected)) {
            next unless exists $cell{$col};
            $bad++, diag "$col: page $cell{$col}, file $row->{$col}"
                if $cell{$col} ne ($row->{$col} // '');
        }
        my $flag = $trs[$i] =~ /class="flag starved"/ ? 1 : 0;
        my $want = ($row->{starved} // '') =~ /^[1-9]/ ? 1 : 0;
        $bad++, diag "row $i: starved on the page $flag, in the file $want"
            if $flag != $want;
        $starved += $want;
    }
    is($bad, 0, "$what: the page's figures and starved flags are the file's"
       . " ($starved starved)");
}

# --- a proxy run ---
my $proxy = run_dir('proxy', qw(topologies/proxy.cfg --sizes 64,1024));
my ($page, $html) = report('proxy', $proxy);
is($page, "$proxy/report.html", 'proxy: the page lands in the results directory');
self_contained('proxy', $html);
rows_match('proxy', $html, $proxy);
charts_drawn('proxy', $html, 3);
for my $file (qw(metadata.json config.cfg results.csv threads.csv memory.csv)) {
    like($html, qr/from <code>[^<]*\Q$file\E/, "proxy: a section says it came from $file");
}
like($html, qr/<th>libzmq<\/th><td>\d+\.\d+\.\d+<\/td>/, 'proxy: the libzmq version');
like($html, qr/<th>NUMA nodes<\/th><td>node 0: CPUs [\d,-]+, distances \d+/,
     'proxy: the NUMA nodes as words, from metadata.json');
like($html, qr/hop 1 tcp --&gt; broker/, 'proxy: the topology drawn');
like($html, qr/\@media print\{.*?table,[^{]*\{break-inside:avoid/, 'proxy: tables kept whole in print');

# --- a tree, topics, a search ---
my $tree = run_dir('tree', qw(topologies/tree-fanout.cfg --sizes 1024));
(undef, $html) = report('tree', $tree);
like($html, qr/\|-- hop 2 tcp --&gt; eu \(proxy.*`-- hop 5 ipc --&gt; eu-sub x2/s,
     'tree: the tree drawn as check --verbose draws it');
rows_match('tree', $html, $tree);

my $topics = run_dir('topics', qw(topologies/topics.cfg --sizes 64,1024));
(undef, $html) = report('topics', $topics);
rows_match('topics', $html, $topics);
like($html, qr/<th>expected<\/th>\s*<th>selectivity<\/th>/, 'topics: expected and selectivity');
like($html, qr/lost \(% of what the hop was expected to carry\)/,
     'topics: the loss axis is a share of what was expected');
like($html, qr/hop 2 broker-(?:>|&gt;)sub\.8 \(tcp\)/, 'topics: the ninth line in a legend');

my $search = run_dir('search', qw(topologies/proxy.cfg --sizes 1024 --set mode=search
    --set search_trial=0.15 --set search_confirm=0.2 --set search_trials=4
    --set loss_ratio=0.01));
(undef, $html) = report('search', $search);
like($html, qr/from <code>search\.csv<\/code>/, 'search: its trials, from search.csv');
like($html, qr/the search at 1024-byte messages/, 'search: the knee chart');
# one size: no line against size of one point each (the table has it);
# the bars of every hop and the knee
charts_drawn('search', $html, 2);
unlike($html, qr/messages per second of each hop against message size/,
       'search: one size, no chart of one point a line');

# --- two runs compared: compare's own cells ---
my $other = run_dir('proxy, forwarder', qw(topologies/proxy.cfg --sizes 64,1024
    --set engine=forwarder));
my $cmp = tmp() . '/cmp.html';
my ($rc, $stdout, $err) = hopbench('report', $proxy, $other, '-o', $cmp);
is($rc, 0, 'compare: exit 0') or diag $err;
$html = Hopbench::slurp($cmp);
(undef, my $text) = hopbench('compare', $proxy, $other);
my @sig = $text =~ /^\s+\d+\s+\d+\s+.*?(~ \(p=[^)]*\)|p=\S+ n=\d+\+\d+)\s*$/mg;
ok(@sig >= 4, 'compare: its table has rows (' . scalar(@sig) . ')');
my @cells = $html =~ /<tr class="delta[^"]*">.*?<td>([^<]*)<\/td><\/tr>/g;
is_deeply(\@cells, \@sig, 'compare: the page\'s significance cells are compare\'s');
my ($delta) = $text =~ /\s([+-]\d+\.\d%)\s+\[/;
like($html, qr/<td class="n">\Q$delta\E<\/td>/, "compare: a delta as compare prints it ($delta)");
self_contained('compare', $html);
SKIP: {
    skip 'no gnuplot', 2 unless system('command -v gnuplot >/dev/null') == 0;
    like($html, qr{<svg[^>]*>(?:(?!</svg>).)*<path(?:(?!</svg>).)*</svg>\s*<figcaption>proxy: msgs/s against size, base \(\Q$proxy\E\) and other \(\Q$other\E\) overlaid}s,
         'compare: the two runs\' msgs/s against size, overlaid in one chart');
    like($html, qr/the last hop \(hop 2 broker-(?:>|&gt;)sub\), one line per run/, '...a line per run');
}

# --- bad input: exit 2, nothing written ---
($rc, undef, $err) = hopbench('report', 'topologies');
is($rc, 2, 'not a results directory: exit 2');
like($err, qr/not a results directory/, 'not a results directory: said');
my $cut = tmp();
write_file("$cut/results.csv", "topology,size,hop\nproxy,64,\"1\n");
($rc, undef, $err) = hopbench('report', $cut);
is($rc, 2, 'a truncated results.csv: exit 2');
ok(!-e "$cut/report.html", 'a truncated results.csv: no page left behind');
($rc, undef, $err) = hopbench('report', $proxy, '-o', '/nonexistent/dir/x.html');
is($rc, 2, 'an unwritable -o: exit 2');
like($err, qr{/nonexistent/dir/x\.html}, 'an unwritable -o: named');

# --- in a real browser ---
SKIP: {
    skip 'no chromium on PATH (Debian: chromium; make check-deps installs it)', 9
      unless $chromium;
    my $shots = $ENV{HOPBENCH_SHOTS} // tmp();
    # a control: a page that errs and reaches out is caught
    my $bad = tmp() . '/bad.html';
    write_file($bad, '<!DOCTYPE html><p>x</p><img src="http://192.0.2.1/x.png">'
      . '<script>nosuch();</script>');
    my (undef, $console, $out) = browse($bad, '--dump-dom');
    ok(@$console && @$out, 'control: a console error and an outside request are seen');
    my $dom;
    ($dom, $console, $out) = browse("$proxy/report.html", '--dump-dom');
    is_deeply($console, [], 'chromium: no console message');
    is_deeply($out, [], 'chromium: no request outside the file');
    my $t = csv("$proxy/results.csv");
    my @trs = $dom =~ /<tr class="hop"/g;
    is(scalar @trs, scalar @{ $t->{rows} }, 'DOM: a row per hop and size');
    my $starved = grep { ($_->{starved} // '') =~ /^[1-9]/ } @{ $t->{rows} };
    my @flags_seen = $dom =~ /class="flag starved"/g;
    is(scalar @flags_seen, $starved, "DOM: the starved flags where results.csv has them ($starved)");
    my @svgs = $dom =~ /(<svg\b.*?<\/svg>)/gs;
    ok(@svgs >= 3 && !grep({ !/<path\b/ } @svgs), 'DOM: every chart\'s SVG is there and drawn');
    like($dom, qr/<h1>hopbench report: /, 'DOM: the page\'s title');
    my $png = "$shots/report-proxy.png";
    unlink $png;
    browse("$proxy/report.html", "--screenshot=$png", '--window-size=1200,3000');
    ok(-s $png && Hopbench::slurp($png) =~ /^\x89PNG/, "screenshot: $png");
    (undef, $console, $out) = browse($cmp, '--dump-dom');
    ok(!@$console && !@$out, 'chromium, the comparison: no console message, no request');
}

done_testing();
