#!/usr/bin/perl
# hopbench plot: charts of a real run, of a sweep, and what bad input says.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $gnuplot = grep { -x "$_/gnuplot" } split /:/, $ENV{PATH};
plan skip_all => 'no gnuplot on PATH (Debian: gnuplot-nox; make check installs it)'
  unless $gnuplot;

# A chart is a real PNG: the magic, some size, and the dimensions we asked for
sub is_chart {
    my ($path, $what) = @_;
    my $bytes = Hopbench::slurp($path);
    ok(-f $path, "$what: $path exists") or return;
    is(substr($bytes, 0, 8), "\x89PNG\r\n\x1a\n", "$what: PNG magic");
    ok(length $bytes > 5000, "$what: more than 5 KB (" . length($bytes) . ')');
    my ($w, $h) = unpack 'NN', substr($bytes, 16, 8);
    ok($w >= 800 && $h >= 500, "$what: ${w}x$h pixels");
}

# PATH with only what the harness needs (timeout), and maybe a fake gnuplot
sub bare_path {
    my ($gnuplot_script) = @_;
    my $bin = tmp();
    symlink '/usr/bin/timeout', "$bin/timeout" or die "symlink: $!";
    if (defined $gnuplot_script) {
        write_file("$bin/gnuplot", $gnuplot_script);
        chmod 0755, "$bin/gnuplot";
    }
    return $bin;
}

# --- a real run, charts drawn by --plot, then again by hopbench plot ---
my $out = tmp();
my ($rc, $stdout, $err) = hopbench(qw(run topologies/proxy.cfg --sizes),
    '64,1024,16384', qw(--duration 0.2 --repeat 2 --quiet --plot --output), $out);
is($rc, 0, 'run --plot: exit 0') or diag $err;
my @charts = map { "$out/proxy-$_.png" } qw(rate-vs-size mbps-vs-size hops-at-1024B);
ok(-s $_, "run --plot drew $_") for @charts;

unlink @charts;
($rc, $stdout, $err) = hopbench('plot', $out);
is($rc, 0, 'plot: exit 0') or diag $err;
my @timelines = map { "$out/proxy-timeline-${_}B.png" } 64, 1024, 16384;
is($stdout, join('', map { "$_\n" } @charts, @timelines),
   'plot: lists the charts it wrote (rate over time, a chart per size)');
ok(-s $_, "plot drew $_") for @timelines;
is_chart($_, 'proxy') for @charts;

my $script = Hopbench::slurp("$out/plot.gp");
like($script, qr/^set xlabel "message size \(bytes, K = 1024, log scale\)"/m, 'script: x axis label');
like($script, qr/^set ylabel "messages\/s received/m, 'script: msgs/s axis label');
like($script, qr/^set ylabel "MB\/s received \(1 MB = 10\^6 bytes\)/m, 'script: MB/s axis label');
like($script, qr/^set y2label "Gbit\/s"/m, 'script: Gbit/s on the right axis');
like($script, qr/^set y2label "lost \(% of what the hop was sent\)"/m, 'script: loss axis');
like($script, qr/^set title "proxy: messages per second of each hop against message size\\n\(median of 2 measurements/m,
     'script: rate chart title says median of 2');
like($script, qr/^set title "proxy: every hop at 1024-byte messages/m, 'script: bar chart title');
like($script, qr/title "hop 1 pub->broker \(tcp\)"/, 'script: hop 1 in the legend');
like($script, qr/title "hop 2 broker->sub \(tcp\)"/, 'script: hop 2 in the legend');
like($script, qr/^set xtics \("64" 64, "1K" 1024, "16K" 16384\)/m, 'script: the sizes are the ticks');

# the data beside it: the median of the two repetitions
my $t = csv("$out/results.csv");
my @rates = sort { $a <=> $b } map { $_->{msgs_per_sec} }
  grep { $_->{size} == 1024 && $_->{hop} == 1 } @{ $t->{rows} };
my ($line) = grep { /^1024 / } split /\n/, Hopbench::slurp("$out/plot-proxy.dat");
my (undef, $median, $min, $max) = split ' ', $line // '';
ok(abs($median - ($rates[0] + $rates[1]) / 2) < 0.2, 'data: hop 1 at 1 KiB is the median');
ok($min == $rates[0] && $max == $rates[1], 'data: with min and max');

# --- a sweep (written by hand): one line per transport, last hop ---
my $sweep = tmp();
my $csv = "topology,pattern,size,repeat,hop,from,to,transport,sent,received,lost,"
  . "seconds,msgs_per_sec,mb_per_sec,from_cpu,to_cpu,from_node,to_node,"
  . "from_cpu_ns_per_msg,to_cpu_ns_per_msg,seq_lost,sweep_transport\n";
my %base = (tcp => 300000, ipc => 450000, inproc => 1500000);
for my $transport (qw(tcp ipc inproc)) {
    for my $size (64, 1024, 16384) {
        for my $repeat (1, 2) {
            for my $hop (1, 2) {
                my $rate = $base{$transport} / (1 + $size / 4096) * ($repeat == 1 ? 0.95 : 1.05)
                  * ($hop == 1 ? 1 : 0.9);
                my ($from, $to) = $hop == 1 ? qw(pub broker) : qw(broker sub);
                my $sent = int($rate * 1.1);
                my $received = int $rate;
                $csv .= join(',', 'proxy', 'pubsub', $size, $repeat, $hop, $from, $to,
                    $transport, $sent, $received, $sent - $received, '1.000000',
                    sprintf('%.1f', $rate), sprintf('%.3f', $rate * $size / 1e6),
                    -1, -1, -1, -1, '', '', '', $transport) . "\n";
            }
        }
    }
}
# the directories written by hand take the real run's metadata.json
my $meta = Hopbench::slurp("$out/metadata.json");
write_file("$sweep/results.csv", $csv);
write_file("$sweep/metadata.json", $meta);
($rc, $stdout, $err) = hopbench('plot', $sweep);
is($rc, 0, 'sweep: exit 0') or diag $err;
is_chart("$sweep/proxy-sweep-transport-rate-vs-size.png", 'sweep');
for my $transport (qw(tcp ipc inproc)) {
    is_chart("$sweep/proxy-transport-$transport-rate-vs-size.png", "sweep $transport");
    like($stdout, qr/proxy-transport-$transport-hops-at-1024B\.png$/m, "sweep: $transport bar chart listed");
}
$script = Hopbench::slurp("$sweep/plot.gp");
like($script, qr/^set title "proxy: the last hop \(hop 2 broker->sub\), one line per transport/m,
     'sweep: title names the hop and the swept key');
like($script, qr/title "transport=tcp", \\\n.*title "transport=ipc", \\\n.*title "transport=inproc"/,
     'sweep: one line per transport');
my ($block) = Hopbench::slurp("$sweep/plot-proxy-sweep.dat") =~ /# transport=inproc\n(.*?)(?:\n\n|\z)/s;
my ($inproc_64) = grep { /^64 / } split /\n/, $block // '';
ok(abs((split ' ', $inproc_64 // '0 0')[1] - 1500000 / (1 + 64 / 4096) * 0.9) < 1,
   'sweep: the inproc line is the last hop\'s median');

# --- a sweep over sockets: the last hop's delivered rate, and the
# broker's CPU per message delivered (per message and connection), against
# the number of sockets, one line per size.  Written by hand: the figures
# are what is tested (a sweep of 1000 sockets is tests/28-sockets.t's)
my $many = tmp();
$csv = "topology,pattern,size,repeat,hop,from,to,transport,sent,received,lost,seconds,"
  . "msgs_per_sec,mb_per_sec,from_cpu,to_cpu,from_node,to_node,from_cpu_ns_per_msg,"
  . "to_cpu_ns_per_msg,sockets,sweep_sub.sockets\n";
my %cost;
for my $size (64, 1024) {
    for my $sockets (1000, 1, 10) { # not in order: the chart sorts by value
        my $in = int(100000 / (1 + $sockets / 100));
        my $ns = 500 + 200 * $sockets;
        $cost{"$size $sockets"} = $ns / $sockets;
        $csv .= join(',', 'many', 'pubsub', $size, 1, 1, 'pub', 'broker', 'tcp', $in, $in, 0, '1.0',
            "$in.0", '1.0', -1, -1, -1, -1, 300, $ns, 1, $sockets) . "\n";
        $csv .= join(',', 'many', 'pubsub', $size, 1, 2, 'broker', 'sub', 'tcp', $in * $sockets,
            $in * $sockets, 0, '1.0', $in * $sockets . '.0', '1.0', -1, -1, -1, -1, $ns, 100,
            $sockets, $sockets) . "\n";
    }
}
write_file("$many/results.csv", $csv);
write_file("$many/metadata.json", $meta);
($rc, $stdout, $err) = hopbench('plot', $many);
is($rc, 0, 'sockets sweep: exit 0') or diag $err;
is_chart("$many/many-rate-vs-sub.sockets.png", 'sockets sweep: delivered rate');
is_chart("$many/many-cpu-vs-sub.sockets.png", 'sockets sweep: CPU per delivered message');
my $cpu = Hopbench::slurp("$many/plot-many-cpu-vs-sub.sockets.dat");
for my $size (64, 1024) {
    my ($points) = $cpu =~ /^# $size B\n(.*?)(?:\n\n|\z)/ms;
    my @ns = map { (split ' ')[1] } grep { /^\d/ } split /\n/, $points // '';
    is(join(' ', map { sprintf '%.1f', $_ } @ns),
       join(' ', map { sprintf '%.1f', $cost{"$size $_"} } 1, 10, 1000),
       "sockets sweep, $size B: the broker's ns per message over its sockets, by value");
}
$script = Hopbench::slurp("$many/plot.gp");
like($script, qr/^set xtics \("1" 0, "10" 1, "1000" 2\)/m, 'sockets sweep: the values in order');
like($script, qr/^set ylabel "sender's CPU ns per message delivered \(per connection\)"/m,
     'sockets sweep: the CPU chart\'s axis');

# --- without gnuplot, or when it fails ---
my $bin = bare_path();
{
    local $ENV{PATH} = $bin;
    ($rc, $stdout, $err) = hopbench('plot', $sweep);
    is($rc, 1, 'no gnuplot: exit 1');
    like($err, qr/no gnuplot on PATH: install the Debian package gnuplot-nox/, 'no gnuplot: names the package');
    ok(-s "$sweep/plot.gp", 'no gnuplot: the script is written anyway');

    my $run = tmp();
    ($rc, undef, $err) = hopbench(qw(run topologies/direct.cfg --sizes 1024
        --duration 0.1 --quiet --plot --output), $run);
    is($rc, 0, 'run --plot without gnuplot: the run still succeeds');
    like($err, qr/--plot: no gnuplot on PATH .*gnuplot-nox.*hopbench plot \Q$run\E/,
         'run --plot without gnuplot: a one-line note');
    ok(-s "$run/results.csv", 'run --plot without gnuplot: results written');
}
$bin = bare_path(qq{#!/bin/sh\necho '"plot.gp" line 3: pretend failure' >&2\nexit 1\n});
{
    local $ENV{PATH} = $bin;
    ($rc, $stdout, $err) = hopbench('plot', $sweep);
    is($rc, 1, 'gnuplot fails: exit 1');
    like($err, qr/gnuplot failed on .*plot\.gp \(exit 1\): "plot\.gp" line 3: pretend failure/,
         'gnuplot fails: its message, and where the script is');
}

# --- bad input: exit 2, one line saying what and where ---
my $bad = tmp();
write_file("$bad/metadata.json", $meta);
my $header = "topology,pattern,size,repeat,hop,from,to,transport,sent,received,lost,"
  . "seconds,msgs_per_sec,mb_per_sec,from_cpu,to_cpu,from_node,to_node\n";
my $row = "proxy,pubsub,64,1,1,pub,broker,tcp,100,90,10,1.0,90.0,0.006,-1,-1,-1,-1\n";
(my $fast = $row) =~ s/,90\.0,/,fast,/;
my @cases = (
    [ undef, qr/\Q$bad\E: not a results directory: no results\.csv/, 'no results.csv' ],
    [ '', qr/results\.csv: empty, not even a header/, 'empty file' ],
    [ "topology,size\np,64\n", qr/results\.csv:1: no column 'hop'/, 'missing columns' ],
    [ $header, qr/results\.csv: no rows/, 'header only' ],
    [ $header . $row . $fast, qr/results\.csv:3: msgs_per_sec 'fast' is not a number/, 'bad number' ],
    [ $header . "proxy,pubsub,64,1\n", qr/results\.csv:2: 4 fields, but the header has 18/, 'short row' ],
    [ $header . "\x00\xff\x01garbage,,,\n", qr/results\.csv:2: /, 'binary garbage' ],
);
for my $case (@cases) {
    my ($text, $want, $what) = @$case;
    unlink "$bad/results.csv";
    write_file("$bad/results.csv", $text) if defined $text;
    ($rc, $stdout, $err) = hopbench('plot', $bad);
    is($rc, 2, "$what: exit 2");
    like($err, qr/^hopbench: .*$want/, "$what: says what is wrong");
    is($stdout, '', "$what: nothing on stdout");
}
($rc, undef, $err) = hopbench('plot', "$bad/nowhere");
is($rc, 2, 'missing directory: exit 2');
like($err, qr/nowhere: No such file or directory/, 'missing directory: named');
($rc, undef, $err) = hopbench('plot', 'README.md');
is($rc, 2, 'a file, not a directory: exit 2');
like($err, qr/README\.md: not a directory/, 'a file, not a directory: said');
# --- a search: the knee, what each hop delivered and lost against the rate
# offered.  Its files written by hand, as a search writes them (the
# search itself is tests/23-modes.t's and 28-search.t's): a real one on a
# busy machine may fail a trial, and the chart is what is tested here
$out = tmp();
my $search = "topology,size,trial,offered_per_sec,sent_per_sec,hop,from,to,"
  . "received_per_sec,lost,loss_ratio,p99_us,pass,phase,verdict,window,starved,passed,cut_short\n";
my @knee = ([1, 900000, 0, 'bound'], [2, 300000, 1, 'step'], [3, 600000, 0, 'step'],
            [4, 450000, 0, 'step'], [5, 375000, 1, 'step'], [6, 375000, 1, 'confirm']);
for (@knee) {
    my ($trial, $offered, $pass, $phase) = @$_;
    my $received = $offered < 400000 ? $offered : 400000;
    my $lost = $offered - $received;
    $search .= join(',', 'direct', 1024, $trial, "$offered.0", "$offered.0", 1, 'pub', 'sub',
        "$received.0", $lost, sprintf('%.6f', $lost / $offered), '', $pass, $phase,
        $pass ? 'pass' : 'fail', $phase eq 'confirm' ? 5 : 1, 'unknown', $pass ? '0' : '', 0) . "\n";
}
write_file("$out/search.csv", $search);
write_file("$out/metadata.json", $meta);
write_file("$out/results.csv", "topology,pattern,size,repeat,hop,from,to,transport,sent,"
  . "received,lost,seconds,msgs_per_sec,mb_per_sec,from_cpu,to_cpu,from_node,to_node,"
  . "from_cpu_ns_per_msg,to_cpu_ns_per_msg,seq_lost,sent_per_sec,mode\n"
  . "direct,pubsub,1024,1,1,pub,sub,tcp,1875000,1875000,0,5.000000,375000.0,384.000,"
  . "-1,-1,-1,-1,,,0,375000.0,search\n");
($rc, $stdout, $err) = hopbench('plot', $out);
is($rc, 0, 'search plot: exit 0') or diag $err;
is_chart("$out/direct-search-1024B.png", 'search knee');
my $knee = Hopbench::slurp("$out/plot-search-direct-1024B.dat");
my @points = grep { /^\d/ } split /\n/, $knee;
my @trials = grep { $_->{hop} == 1 } @{ csv("$out/search.csv")->{rows} };
is(scalar @points, scalar @trials, 'search knee: a point per trial');
like($knee, qr/^# hop 1 pub->sub$/m, 'search knee: a block per link');
my @offered = map { (split ' ')[0] } @points;
is("@offered", join(' ', sort { $a <=> $b } @offered), 'search knee: points in offered order');
$script = Hopbench::slurp("$out/plot.gp");
like($script, qr/^set xlabel "messages\/s offered \(all publishers\)"/m, 'search knee: offered axis');
like($script, qr/x with lines dt 2 .*"delivered = offered"/, 'search knee: the diagonal');
done_testing();
