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
# every stage's thread, I/O thread and reaper, and the controller's three
like($out, qr/ok \(pubsub, 128 stages, 127 hops, 387 threads\)/, 'longest chain: 128 stages');
($rc, $out, $err) = hopbench('plan', "$dir/longest.cfg");
is($rc, 0, 'longest chain: plan exit 0') or diag $err;
like($out, qr/^p126\s+proxy\s+main/m, 'longest chain: plan has the last proxy');
is(scalar(split /\n/, $out) - 2, 387, 'longest chain: the plan lists the 387 threads check counts');
# Its run, paced (rate): what is tested is that the largest pipelines
# run, not how fast.  Flat out, 128 stages' threads on 2 CPUs fill every
# queue, and the drain of them, and the stalls of threads waiting for a
# CPU (a retry), took a minute here; paced, seconds.  No stall check:
# beside other work (load 35) subscribers of the widest fan-out waited out
# a whole 0.2 s window for a CPU, twice (stalls are tests/31-stalled.t's)
my @paced = qw(--set rate=2000 --set timeout=60 --set stall_ratio=0);
my $results = "$dir/longest";
($rc, $out, $err) = hopbench('run', "$dir/longest.cfg", @paced, qw(--sizes 64
    --duration 0.2 --quiet --output), $results);
is($rc, 0, 'longest chain: run exit 0') or diag $err;
my @rows = @{ csv("$results/results.csv")->{rows} };
is(scalar @rows, 127, 'longest chain: a row per hop');
is($rows[-1]{from} . '->' . $rows[-1]{to}, 'p126->sub', 'longest chain: the last hop');
ok(!grep({ $_->{received} == 0 } @rows), 'longest chain: every hop delivered');

# The widest tree of 128 stages: a core into 63 regional edges, each with
# its subscriber; every link a row, every subscriber all of it (paced)
my $tree = "topology = wide\n    sizes = 64\npublisher = pub\nhop\nproxy = core\n";
$tree .= "proxy = e$_\n    from = core\nhop = ipc\nsubscriber = s$_\n" for 1 .. 63;
write_file("$dir/widetree.cfg", $tree);
($rc, $out, $err) = hopbench('check', "$dir/widetree.cfg");
is($rc, 0, 'widest tree: check exit 0') or diag $err;
like($out, qr/ok \(pubsub, 128 stages, 127 hops, 387 threads\)/, 'widest tree: 128 stages');
$results = "$dir/widetree";
($rc, $out, $err) = hopbench('run', "$dir/widetree.cfg", @paced, qw(--sizes 64
    --duration 0.2 --quiet --output), $results);
is($rc, 0, 'widest tree: run exit 0') or diag $err;
@rows = @{ csv("$results/results.csv")->{rows} };
is(scalar @rows, 127, 'widest tree: a row per link');
is(scalar(grep { $_->{lost} == 0 && $_->{received} == $rows[0]{sent} } @rows), 127,
   'widest tree: every link took all the publisher sent');

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
($rc, $out, $err) = hopbench('run', "$dir/sixty.cfg", @paced, qw(--sizes 64
    --duration 0.2 --quiet --output), "$dir/sixty");
is($rc, 0, '60 proxies: run exit 0') or diag $err;
is(scalar @{ csv("$dir/sixty/results.csv")->{rows} }, 61, '60 proxies: a row per hop');

# The widest fan-out one machine runs: 64 subscribers behind a proxy (a
# fleet of a thousand, one per host, is tests/78-fleet.t's: on one machine
# their threads pass LIMIT_THREADS first)
my $fanout = "topology = wide\n    sizes = 64\npublisher = pub\nhop = tcp\nproxy = broker\nhop = tcp\nsubscriber = sub\n    count = %d\n";
write_file("$dir/wide.cfg", sprintf($fanout, 64));
($rc, $out, $err) = hopbench('run', "$dir/wide.cfg", @paced, qw(--sizes 64 --duration 0.2
    --quiet --output), "$dir/wide");
is($rc, 0, 'widest fan-out: run exit 0') or diag $err;
my @last = grep { $_->{hop} == 2 } @{ csv("$dir/wide/results.csv")->{rows} };
is(scalar @last, 64, 'widest fan-out: a row per subscriber');
write_file("$dir/wider.cfg", sprintf($fanout, 1025));
($rc, $out, $err) = hopbench('check', "$dir/wider.cfg");
is($rc, 2, 'count past the limit: exit 2');
like($err, qr/wider\.cfg:8: count must be between 1 and 1024, not '1025'/, 'count past the limit: at its line');

# 1 + 1 + 1023 instances: one past LIMIT_INSTANCES, at the count that passes
write_file("$dir/instances.cfg", "topology = t\npublisher = pub\nhop\nproxy = p\nhop\nsubscriber = sub\n    count = 1023\n");
for my $command (qw(check plan run)) {
    ($rc, $out, $err) = hopbench($command, "$dir/instances.cfg");
    is($rc, 2, "instances past the limit: $command exit 2");
    like($err, qr/instances\.cfg:7: stage 'sub' makes 1025 stage instances, more than 1024 \(LIMIT_INSTANCES/,
        "instances past the limit: $command names the line and the limit");
}

# 64 publishers into 65 subscribers that each tell them apart: 4,160 rows,
# past LIMIT_LINKS, at the count of the wider side; 64 into 64 plan
write_file("$dir/links.cfg", "topology = t\npublisher = pub\n    count = 64\nhop\nsubscriber = sub\n    count = 65\n");
($rc, $out, $err) = hopbench('check', "$dir/links.cfg");
is($rc, 2, 'rows past the limit: exit 2');
like($err, qr/links\.cfg:6: hop 1 \(pub -> sub\) makes a trial of 4160 rows or more, more than 4096 \(LIMIT_LINKS/,
    'rows past the limit: at the count of the wider side, naming the limit');
write_file("$dir/links.cfg", "topology = t\npublisher = pub\n    count = 64\nhop\nsubscriber = sub\n    count = 64\n");
($rc, $out, $err) = hopbench('plan', "$dir/links.cfg", '--format', 'csv');
is($rc, 0, '4,096 rows: planned') or diag $err;

# Threads: 64 publishers with 8 I/O threads each would start 640
write_file("$dir/threads.cfg", "topology = t\npublisher = pub\n    count = 64\n    io_threads = 8\nhop\nsubscriber = sub\n");
($rc, $out, $err) = hopbench('check', "$dir/threads.cfg");
is($rc, 2, 'threads past the limit: exit 2');
like($err, qr/threads\.cfg:4: pub\.\d+: the pipeline would start more than 512 threads .*LIMIT_THREADS/,
    'threads past the limit: at io_threads');

# Zones: at most 16, and only hops 1..64 cross one (check needs no root)
my $zones = "topology = z\n    sizes = 64\npublisher = pub\n    netns = z0\n";
$zones .= "hop\nproxy = p$_\n    netns = z$_\n" for 1 .. 16;
write_file("$dir/zones.cfg", $zones . "hop\nsubscriber = sub\n");
($rc, $out, $err) = hopbench('check', "$dir/zones.cfg");
is($rc, 2, '17 zones: exit 2');
like($err, qr/zones\.cfg:52: zone 'z16': more than 16 zones \(LIMIT_ZONES/, '17 zones: at the 17th netns');
for my $n (63, 64) {
    write_file("$dir/cross$n.cfg", chain($n, 'tcp') . "    netns = far\n");
    ($rc, $out, $err) = hopbench('check', "$dir/cross$n.cfg");
    my $hop = $n + 1;
    if ($hop <= 64) {
        is($rc, 0, "hop $hop crosses zones: check exit 0") or diag $err;
    } else {
        is($rc, 2, "hop $hop crosses zones: exit 2");
        like($err, qr/cross$n\.cfg:134: hop 65 crosses zones; only hops 1\.\.64 can \(LIMIT_ZONE_HOPS/,
            "hop $hop crosses zones: at the netns line");
    }
}

# Files: a run that needs more than the hard limit allows is refused (a
# lower soft limit is raised); libzmq would abort on the missing sockets
sub limited {
    my ($limits, @args) = @_;
    my $cmd = join ' ', map { quotemeta } './hopbench', @args;
    my $err = `sh -c 'ulimit $limits && exec $cmd' 2>&1 >/dev/null`;
    return ($? >> 8, $err);
}
($rc, $err) = limited('-n 256', 'run', "$dir/longest.cfg", qw(--sizes 64 --duration 0.1 --quiet --output), "$dir/never");
is($rc, 2, 'too few files: exit 2');
like($err, qr/longest\.cfg: the pipeline would open about \d+ files, more than this process may \(ulimit -Hn: 256\)/,
    'too few files: says how many and why');
ok(!-e "$dir/never", 'too few files: nothing ran');
($rc, $err) = limited('-Sn 256', 'run', "$dir/sixty.cfg", @paced, qw(--sizes 64 --duration 0.1 --quiet --output), "$dir/raised");
is($rc, 0, 'a low soft limit is raised: exit 0') or diag $err;

# metadata.json names every encrypted hop: hop1 is not taken for hop12
# (paced, and no stall check: twelve CURVE stages flat out beside a CPU
# hog stalled a window twice, exit 1; stalls are tests/31-stalled.t's)
write_file("$dir/twelve.cfg", chain(11, 'tcp'));
($rc, $out, $err) = hopbench('run', "$dir/twelve.cfg", '--sweep', 'hop12.curve=true',
    '--sweep', 'hop1.curve=false,true', @paced, qw(--set stall_ratio=0 --sizes 64
    --duration 0.1 --quiet --output), "$dir/twelve");
is($rc, 0, 'curve on hops 12 and 1: exit 0') or diag $err;
like(Hopbench::slurp("$dir/twelve/metadata.json"), qr/"curve": "hop12 hop1"/, 'curve on hops 12 and 1: both named');

# The command line's limits, and the file size, each named
($rc, $out, $err) = hopbench('check', 'topologies/direct.cfg', map { ('--set', 'hwm=5') } 1 .. 129);
is($rc, 2, '129 --set: exit 2');
like($err, qr/more than 128 --set options, shorthands included \(LIMIT_SETS/, '129 --set: the limit');
($rc, $out, $err) = hopbench('run', 'topologies/direct.cfg', map { ('--sweep', "$_=1,2,3,4") }
    qw(hwm warmup repeat duration timeout rate));
is($rc, 2, '4096 combinations: exit 2');
like($err, qr/more than 1024 combinations .*LIMIT_SWEEP_COMBOS/, '4096 combinations: the limit');
($rc, $out, $err) = hopbench('run', 'topologies/direct.cfg', '--sweep', 'hwm=' . join(',', 1 .. 65));
is($rc, 2, '65 swept values: exit 2');
like($err, qr/more than 64 values \(LIMIT_SWEEP_VALUES/, '65 swept values: the limit');
write_file("$dir/big.cfg", "topology = t\n" . ('#' x 99 . "\n") x 10486);
($rc, $out, $err) = hopbench('check', "$dir/big.cfg");
is($rc, 2, 'a file past 1 MiB: exit 2');
like($err, qr/big\.cfg: larger than 1048576 bytes \(LIMIT_FILE_BYTES/, 'a file past 1 MiB: the limit');

done_testing();
