#!/usr/bin/perl
# A fleet: many hosts in one run.  Hosts are network namespaces the test
# makes (names with its pid), one agent each, on 169.254.0.0/16 (h1 at
# .81.1, 250 hosts to each /24); the controller in its own (.80.250); all
# removed at the end, also after a failure.
#
# make check: a hosts file of 1,000 hosts of which three are live runs a
# 3-host pipeline (pub@h1 -> broker@h2 -> sub@h3, the subscriber's host
# given as a range), its rows' edge_span one positive figure;
# LIMIT_THREADS counted on each host apart; plan warns once for three
# hosts crowded alike; two agents not running at the start, and two
# killed as their stages start, each named with the other in one error;
# two hosts cut together are named in one error; about 12 s.
#
# make check-long (HOPBENCH_LONG=1) adds the fleet, HOPBENCH_FLEET_HOSTS
# hosts (100; 4 to 1000): pub@h1 -> broker@h2 -> a subscriber on every
# other host, tcp, rate = 1000 (HOPBENCH_FLEET_RATE: a fleet of hundreds
# takes more than two CPUs give at that), sizes 64,1024, --duration 1:
# check greets every agent; the run exits 0, a row per subscriber and
# size, every row consistent (received <= sent, lost = expected -
# received), the windows' lengths noted; then three agents killed
# together mid-run: exit 1 within timeout + 5 s, one error naming all
# three.  Its notes give the time to the first rows and the controller's
# CPU and RSS (/usr/bin/time -v) per host.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Hosts;
use Time::HiRes qw(time sleep);
use Test::More;

chdir "$FindBin::Bin/..";
Hosts::able();

my $n = long() ? $ENV{HOPBENCH_FLEET_HOSTS} // 100 : 3;
BAIL_OUT("HOPBENCH_FLEET_HOSTS=$n: 4 to 1000") if long() && ($n < 4 || $n > 1000);
my @hosts = map { "h$_" } 1 .. $n;
my $fleet = Hosts->new(id => 'fl' . ($$ % 100000), subnet => '169.254', third => 81,
                       controller => '80.250', hosts => \@hosts);
my ($net, $work) = ($fleet->net, $fleet->work);
my $said = $fleet->keys;
BAIL_OUT($said) if $said ne '';
$fleet->agent($_) or BAIL_OUT("no agent on $_") for @hosts;

# A results directory's results.csv has rows (more than its header)
sub rows { return (() = Hopbench::slurp("$_[0]/results.csv") =~ /\n/g) > 1 }

# The controller in its namespace, under /usr/bin/time -v when there;
# polls results.csv for its first rows: (exit status, seconds to end,
# seconds to the first rows or undef, stderr, results directory)
my ($runs, $ended) = (0, 0);
sub run {
    my ($topology, %o) = @_;
    my $name = 'run-' . ++$runs;
    my $out = "$work/$name";
    my @time = -x '/usr/bin/time' ? ('/usr/bin/time', '-v', '-o', "$work/$name.time") : ();
    my $start = time;
    my $pid = $fleet->controller($name, { hosts => $o{hosts}, wrap => \@time }, 'run',
        $topology, '--output', $out, '--quiet', @{ $o{args} // [] });
    my ($first, $rc);
    $o{during}->($start) if $o{during};
    my $rows = sub {
        $first //= time - $start if rows($out);
    };
    $rc = $net->finish($pid, $o{limit} // 120, $rows);
    $ended = time;
    $rows->();
    return ($rc, time - $start, $first, Hopbench::slurp("$work/$name.err"), $out,
        Hopbench::slurp("$work/$name.time"));
}

# --- A hosts file of 1,000 hosts, three of them live ----------------------
{
    open my $fh, '>', "$work/many.cfg" or die;
    print $fh Hopbench::slurp("$work/hosts.cfg");
    printf $fh "host = idle%04d\n    agent = tcp://169.254.81.%d:7801\n    cert = keys/h1.cert\n",
        $_, 1 + $_ % 200 for 4 .. 1000;
    close $fh or die;
    write_file("$work/three.cfg", <<'EOF');
topology = three
    transport = tcp
    sizes = 64
    duration = 0.1
    warmup = 0.05
publisher = pub
    host = h1
hop
proxy = broker
    host = h2
hop
subscriber = sub
    host = h3..h3
EOF
    my ($rc, $secs, $first, $err, $out) = run("$work/three.cfg", hosts => "$work/many.cfg");
    is($rc, 0, 'a hosts file of 1,000 hosts, a 3-host run: exit 0') or diag $err;
    my $csv = csv("$out/results.csv");
    is_deeply([ map { "$_->{from_host}>$_->{to_host}" } @{ $csv->{rows} } ], [ 'h1>h2', 'h2>h3' ],
        'a hosts file of 1,000 hosts: its two rows, on the hosts named');
    my @spans = map { $_->{edge_span} // '' } @{ $csv->{rows} };
    ok(@spans == 2 && $spans[0] =~ /^\d+\.\d{6}$/ && $spans[0] > 0 && $spans[0] eq $spans[1]
        && $spans[0] < $csv->{rows}[0]{seconds},
        "the window's edge span: one positive figure on the trial's rows, shorter than its window (@spans)");
}

# --- plan: one crowding warning for the hosts crowded alike -----------------
{
    write_file("$work/crowded.cfg", <<'EOF');
topology = crowded
    transport = tcp
publisher = pub
    host = h1
    io_threads = 4
hop
subscriber = sub
    count = 2
    host = h2..h3
    io_threads = 4
EOF
    my $pid = $fleet->controller('plan', {}, 'plan', "$work/crowded.cfg");
    is($net->finish($pid, 60), 0, 'plan on three crowded hosts: exit 0');
    my $err = Hopbench::slurp("$work/plan.err");
    my @warnings = $err =~ /^hopbench: warning.*$/mg;
    is(scalar @warnings, 1, 'plan on three crowded hosts: one warning') or diag $err;
    like($warnings[0] // '', qr/^hopbench: warning on 3 hosts \(h1, h2, h3\): on each, \d+ busy threads .* may run on \d+ CPUs/,
        'plan: the warning names the three hosts and what crowds each') or diag $err;
}

# --- LIMIT_THREADS counts each machine's threads apart ---------------------
{
    my $topology = "topology = wide\n    transport = tcp\npublisher = pub\n    host = h1\nhop\n"
        . "subscriber = sub\n    count = 60\n    io_threads = 6\n    host = %s\n";
    write_file("$work/wide.cfg", sprintf $topology, 'h2..h3');
    write_file("$work/narrow.cfg", sprintf $topology, 'h2');
    my $pid = $fleet->controller('wide', {}, 'plan', "$work/wide.cfg", '--format', 'csv');
    is($net->finish($pid, 60), 0, 'threads past LIMIT_THREADS over two hosts, within it on each: planned')
        or diag Hopbench::slurp("$work/wide.err");
    my $rows = () = Hopbench::slurp("$work/wide.out") =~ /\n/g;
    cmp_ok($rows, '>', 512, "threads over two hosts: $rows rows planned");
    $pid = $fleet->controller('narrow', {}, 'plan', "$work/narrow.cfg");
    is($net->finish($pid, 60), 2, 'the same threads on one host: exit 2');
    like(Hopbench::slurp("$work/narrow.err"),
        qr/narrow\.cfg:\d+: sub\.\d+: the pipeline would start more than 512 threads on host h2 .*LIMIT_THREADS, docs\/LIMITS\.md/,
        'the same threads on one host: refused at its line, naming the host and the limit');
}

# --- The fleet (make check-long) -------------------------------------------
if (long()) {
    my $subs = $n - 2;
    my $rate = $ENV{HOPBENCH_FLEET_RATE} // 1000;
    # past 250 hosts, starting a stage process on each takes this 2-CPU
    # machine longer than 10 s (500 hosts: load 360, 7 GB)
    my $timeout = $n > 250 ? int($n / 25) : 10;
    my $topology = "topology = fleet\n    transport = tcp\n    rate = $rate\n    timeout = $timeout\n"
        . "publisher = pub\n    host = h1\nhop\nproxy = broker\n    host = h2\nhop\n"
        . "subscriber = sub\n    count = $subs\n    host = h3..h$n\n";
    write_file("$work/fleet.cfg", $topology);
    my $checked = time;
    my $pid = $fleet->controller('fleet-check', {}, 'check', "$work/fleet.cfg", '--sizes', '64,1024');
    is($net->finish($pid, 300), 0, "$n hosts: check exit 0, every agent greeted")
        or diag Hopbench::slurp("$work/fleet-check.err");
    note sprintf "%d hosts: check took %.2f s", $n, time - $checked;
    my ($rc, $secs, $first, $err, $out, $time) =
        run("$work/fleet.cfg", args => ['--sizes', '64,1024', '--duration', '1']);
    is($rc, 0, "$n hosts: exit 0") or diag $err;
    my @rows = @{ csv("$out/results.csv")->{rows} };
    for my $size (64, 1024) {
        my @to = grep { $_->{size} == $size && $_->{from} eq 'broker' } @rows;
        is(scalar @to, $subs, "$n hosts: a row per subscriber at size $size");
    }
    my @bad = grep {
        $_->{received} > $_->{sent} || $_->{lost} != ($_->{expected} // $_->{sent}) - $_->{received}
    } @rows;
    is(scalar @bad, 0, "$n hosts: every row consistent")
        or diag join("\n", map { "$_->{size} $_->{from}>$_->{to}: sent $_->{sent} received "
            . "$_->{received} lost $_->{lost}" } @bad[0 .. ($#bad > 4 ? 4 : $#bad)]);
    for my $size (64, 1024) {
        my @of = grep { $_->{size} == $size } @rows;
        my ($slow, $fast) = (sort { $a <=> $b } map { $_->{msgs_per_sec} } @of)[0, -1];
        note sprintf "%d hosts, size %d: %d rows, %s to %s msgs/s, %d lost in all", $n, $size,
            scalar @of, $slow // '-', $fast // '-', eval { my $t = 0; $t += $_->{lost} for @of; $t };
    }
    my ($lo, $hi) = (sort { $a <=> $b } map { $_->{seconds} } @rows)[0, -1];
    my ($near, $far) = (sort { $a <=> $b } map { $_->{edge_span} } @rows)[0, -1];
    note sprintf "%d hosts: windows %.4f-%.4f s, edge spans %.4f-%.4f s, first rows at %s s, ended at %.2f s",
        $n, $lo // -1, $hi // -1, $near // -1, $far // -1, defined $first ? sprintf('%.2f', $first) : 'never', $secs;
    my ($user) = $time =~ /User time \(seconds\): ([\d.]+)/;
    my ($sys) = $time =~ /System time \(seconds\): ([\d.]+)/;
    my ($rss) = $time =~ /Maximum resident set size \(kbytes\): (\d+)/;
    note sprintf "%d hosts: controller CPU %.2f s (%.1f ms per host), RSS %d kB (%.0f kB per host)",
        $n, $user + $sys, 1000 * ($user + $sys) / $n, $rss, $rss / $n if defined $rss;
    ok(defined $first, "$n hosts: rows came") and note "first rows after $first s";

    # Three agents killed together, mid-run
    my $killed_at;
    my @dead = @hosts[ int($n / 3), int($n / 2), $n - 1 ];
    ($rc, $secs, $first, $err) = run("$work/fleet.cfg",
        args => ['--sizes', '64,1024,4096,16384', '--duration', '2'],
        during => sub {
            my ($start) = @_;
            sleep 0.05 until rows("$work/run-$runs") || time > $start + 60;
            sleep 0.5;
            my $at = time;
            kill 'KILL', $fleet->agent_pid($_) for @dead;
            $killed_at = $at;
        });
    my $after = $ended - $killed_at;
    is($rc, 1, "three agents killed at $n hosts: exit 1") or diag $err;
    ok($after <= $timeout + 5,
        sprintf('three agents killed: ended %.2f s after (timeout %d + 5)', $after, $timeout));
    like($err, qr/\b\Q$_\E\b/, "three agents killed: $_ named") for @dead;
    is(scalar(() = $err =~ /^hopbench: (?!warning)/mg), 1, 'three agents killed: one error') or diag $err;
    note "three agents killed: $err";
}

# --- Agents lost at set-up, named together --------------------------------
# Two agents not running when the run starts: one error names both, within
# one timeout (their handshakes awaited at once); two killed while their
# stages start (the controller held before START to h2): one error names
# both.  The agents are started again after each
sub restart {
    for my $host (@_) {
        $fleet->agent_stop($host, 'KILL');
        $fleet->agent($host) or BAIL_OUT("no agent on $host");
    }
}
{
    write_file("$work/setup.cfg", "topology = setup\n    transport = tcp\n    timeout = 2\n"
        . "publisher = pub\n    host = h1\nhop\nproxy = broker\n    host = h2\nhop\n"
        . "subscriber = sub\n    host = h3\n");
    $fleet->agent_stop($_, 'KILL') for qw(h2 h3);
    my ($rc, $secs, $first, $err) = run("$work/setup.cfg", args => ['--sizes', '64', '--duration', '0.1']);
    is($rc, 1, 'two agents not running: exit 1') or diag $err;
    ok($secs <= 2 + 5, sprintf('two agents not running: ended after %.2f s (timeout 2 + 5)', $secs));
    like($err, qr/^hopbench: host h2 \(agent [^)]*\): no answer within 2\.0 s \(is its agent running, and at this address\?\); host h3 \(agent [^)]*\): no answer within 2\.0 s/m,
        'two agents not running: one error names h2 and h3') or diag $err;
    is(scalar(() = $err =~ /^hopbench: (?!warning)/mg), 1, 'two agents not running: one error') or diag $err;
    restart(qw(h2 h3));

    my $hold = "$work/hold-start";
    write_file($hold, '');
    local $ENV{HOPBENCH_TEST_HOLD} = "START\@h2:$hold";
    ($rc, $secs, $first, $err) = run("$work/setup.cfg", args => ['--sizes', '64', '--duration', '0.1'],
        during => sub {
            my ($start) = @_;
            sleep 0.01 until -e "$hold.held" || time > $start + 30;
            kill 'KILL', map { $fleet->agent_pid($_) } qw(h2 h3);
            sleep 0.2;
            unlink $hold;
        });
    is($rc, 1, 'two agents killed as their stages start: exit 1') or diag $err;
    # either first: SPEC is asked of every host before START, so h3 may
    # not have answered SPEC yet when both are killed
    ok($err =~ /\bhost h2\b/ && $err =~ /\bhost h3\b/, 'two agents killed as their stages start: h2 and h3 named')
        or diag $err;
    is(scalar(() = $err =~ /^hopbench: (?!warning)/mg), 1, 'two agents killed as their stages start: one error')
        or diag $err;
    note "agents killed at START: $err";
    restart(qw(h2 h3));
}

# --- Two hosts cut together: one error names both (last: their agents
# end the run when they notice the silence) --------------------------------
{
    write_file("$work/cut.cfg", "topology = cut\n    transport = tcp\n    timeout = 2\n"
        . "publisher = pub\n    host = h1\nhop\nsubscriber = sub\n    count = 2\n    host = h2..h3\n");
    my $cut;
    my ($rc, $secs, $first, $err) = run("$work/cut.cfg",
        args => ['--sizes', '64,1024,4096', '--duration', '2'],
        during => sub {
            my ($start) = @_;
            sleep 0.05 until rows("$work/run-$runs") || time > $start + 60;
            #  both at once: their bridge ends, by one ip
            write_file("$work/cut.batch", join '', map { "link set $net->{id}${_}b down\n" } qw(h2 h3));
            $cut = time;
            system('ip', '-n', $net->ns('br'), '-batch', "$work/cut.batch") == 0 or diag 'ip -batch failed';
        });
    write_file("$work/cut.batch", join '', map { "link set $net->{id}${_}b up\n" } qw(h2 h3));
    system('ip', '-n', $net->ns('br'), '-batch', "$work/cut.batch");
    is($rc, 1, 'h2 and h3 cut together: exit 1') or diag $err;
    ok($ended - $cut <= 2 + 5, sprintf('h2 and h3 cut together: ended %.2f s after (timeout 2 + 5)', $ended - $cut));
    like($err, qr/\bhost $_\b/, "h2 and h3 cut together: $_ named") for qw(h2 h3);
    is(scalar(() = $err =~ /^hopbench: (?!warning)/mg), 1, 'h2 and h3 cut together: one error') or diag $err;
    note "h2 and h3 cut: $err";
}

done_testing();
