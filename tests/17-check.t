#!/usr/bin/perl
# What `hopbench check` can know before anything runs, it says: exit 2 at
# the file's line naming the key or link, or a warning that names the key.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;
use Time::HiRes qw(time);

chdir "$FindBin::Bin/..";
my $dir = tmp();

# A topology of pub -> p -> sub, with each hop's lines after it
sub chain {
    my ($name, $top, $hop1, $hop2, $sub) = @_;
    write_file("$dir/$name", "topology = t\n" . ($top // '')
        . "publisher = pub\nhop\n" . ($hop1 // '') . "proxy = p\nhop\n"
        . ($hop2 // '') . "subscriber = sub\n" . ($sub // ''));
    return "$dir/$name";
}

# check refuses with exit 2, its message matching $want
sub refused {
    my ($path, $want, $what, @more) = @_;
    my ($rc, $out, $err) = hopbench('check', $path, @more);
    is($rc, 2, "$what: exit 2");
    like($err, $want, "$what: says where and what");
}

# check passes (exit 0); its stderr matches $want (a warning) or is empty
sub passed {
    my ($path, $want, $what, @more) = @_;
    my ($rc, $out, $err) = hopbench('check', $path, @more);
    is($rc, 0, "$what: exit 0") or diag $err;
    $want ? like($err, $want, "$what: warns") : is($err, '', "$what: quiet");
}

# --- One socket in two spellings
my $ipc = "$dir/ipc";
mkdir $ipc;
for my $alias ("$ipc//same.ipc", "$ipc/./same.ipc", "$ipc/../ipc/same.ipc") {
    my $path = chain('alias.cfg', "    transport = ipc\n", "    endpoint = ipc://$ipc/same.ipc\n",
                     "    endpoint = ipc://$alias\n");
    refused($path, qr/alias\.cfg:8: hop 2 endpoint ipc:\/\/\Q$alias\E names the socket of hop 1 \(pub -> p, \S*alias\.cfg:5\)/,
            "ipc alias $alias");
}
my $missing = "$dir/no/such";
my $path = chain('alias.cfg', "    transport = ipc\n", "    endpoint = ipc://$missing/x.ipc\n",
                 "    endpoint = ipc://$missing//x.ipc\n");
refused($path, qr/alias\.cfg:8: hop 2 .* names the socket of hop 1/,
        'ipc alias in a directory that does not exist yet');
for my $pair (['tcp://127.0.0.1:5599', 'tcp://localhost:5599', 'names the socket of'],
              ['tcp://127.0.0.1:5599', 'tcp://127.1:5599', 'names the socket of'],
              ['tcp://0.0.0.0:5599', 'tcp://127.0.0.1:5599', 'overlaps'],
              ['tcp://192.0.2.1:5599', 'tcp://0.0.0.0:5599', 'overlaps']) {
    my ($first, $second, $words) = @$pair;
    $path = chain('tcp.cfg', "    transport = tcp\n",
                  "    endpoint = $first\n", "    endpoint = $second\n");
    refused($path, qr/tcp\.cfg:8: hop 2 endpoint \Q$second\E $words hop 1 \(pub -> p, \S*tcp\.cfg:5\)/,
            "tcp alias $first, $second");
}
$path = chain('tcp.cfg', "    transport = tcp\n",
              "    endpoint = tcp://127.0.0.1:5599\n",
              "    endpoint = tcp://127.0.0.2:5599\n");
passed($path, undef, 'two addresses on one port');
$path = chain('ipc.cfg', "    transport = ipc\n", "    endpoint = ipc://$ipc/a.ipc\n",
              "    endpoint = ipc://$ipc/b.ipc\n");
passed($path, undef, 'two ipc files in one directory');

# --- stdin closed: no wait, no FIFO blamed
my $start = time;
system("./hopbench check - <&- >$dir/out 2>$dir/err");
my $seconds = time - $start;
is($? >> 8, 2, 'check - with stdin closed: exit 2');
cmp_ok($seconds, '<', 5, 'check - with stdin closed: not the 10 s wait for a writer');
like(Hopbench::slurp("$dir/err"), qr/stdin is closed/, 'check - with stdin closed: says so');
system("./hopbench check topologies/proxy.cfg <&- >$dir/out 2>$dir/err");
is($? >> 8, 0, 'a file to check with stdin closed: exit 0');

# --- curve where hopbench gives no keys: a hop's own curve on ipc, or the
# file's when no hop is tcp; the file's with a tcp hop encrypts that one
$path = chain('curve.cfg', undef, "    transport = ipc\n    curve = true\n", "    transport = tcp\n");
refused($path, qr/curve\.cfg:5: hop 1 has curve, but it is ipc: hopbench encrypts tcp hops only/,
        "a hop's own curve on ipc");
$path = chain('curve.cfg', "    transport = ipc\n    curve = true\n");
refused($path, qr/curve\.cfg:3: curve = true, but no hop is tcp/, "the file's curve, every hop ipc");
$path = chain('curve.cfg', "    transport = ipc\n    curve = true\n", undef, "    transport = tcp\n");
passed($path, undef, "the file's curve with one tcp hop");

# --- a zone on the controller's host linked to a stage on another host
$path = chain('zone.cfg', undef, undef, undef);
write_file($path, "topology = z\npublisher = pub\n    netns = a\nhop\n    transport = tcp\n"
    . "proxy = broker\n    host = h1\nhop\nsubscriber = sub\n");
refused($path, qr/zone\.cfg:3: stage 'pub' is in zone 'a' on the controller's host, and hop 1 links it to 'broker' on host h1/,
        'a zone linked to another host');
write_file($path, "topology = z\npublisher = pub\nhop\n    transport = tcp\n"
    . "proxy = broker\n    host = h1\nhop\n    transport = tcp\nsubscriber = sub\n    netns = a\n");
refused($path, qr/zone\.cfg:10: stage 'sub' is in zone 'a' on the controller's host, and hop 2 links it to 'broker' on host h1/,
        'a host linked into a zone');

# --- sockets against the file limit: check refuses what run would
system("sh -c 'ulimit -n 256; exec ./hopbench check topologies/many-subs.cfg' >$dir/out 2>$dir/err");
is($? >> 8, 2, 'many-subs under ulimit -n 256: check exits 2, as run would');
like(Hopbench::slurp("$dir/err"), qr/many-subs\.cfg: the pipeline would open about \d+ files, more than this process may \(ulimit -Hn: 256\).*1000 SUB sockets/,
     'many-subs under ulimit -n 256: says how many files, the limit and the sockets');
system("sh -c 'ulimit -n 256; exec ./hopbench run topologies/many-subs.cfg --sizes 64 --duration 0.1 --quiet --output $dir/never' >$dir/out 2>$dir/err");
is($? >> 8, 2, 'many-subs under ulimit -n 256: run refuses it too');

# --- a subscriber that no publisher's topics can reach: check and run
# both refuse it at its subscribe, before anything runs
write_file("$dir/unreached.cfg", "topology = t2\n    sizes = 64\npublisher = pa\n    topics = 100\nhop\n"
    . "subscriber = sa\n    subscribe = 50-60\n\npublisher = pb\n    topics = 10\nhop\n"
    . "subscriber = sb\n    subscribe = 50-60\n");
refused("$dir/unreached.cfg", qr/unreached\.cfg:13: subscriber sb \(subscribe = 50-60\) takes no topic its publishers send \(0 to 9\): nothing can arrive/,
        'a subscriber nothing can reach');
{
    my ($rc, $out, $err) = hopbench('run', "$dir/unreached.cfg", qw(--duration 0.1 --quiet --output), "$dir/unreached");
    is($rc, 2, 'a subscriber nothing can reach: run exits 2 before its first trial');
    ok(!-e "$dir/unreached/results.csv", '...and measures nothing');
}
write_file("$dir/reached.cfg", "topology = t2\n    sizes = 64\npublisher = pa\n    topics = 100\nhop\n"
    . "subscriber = sa\n    subscribe = 5-60\n\npublisher = pb\n    topics = 10\nhop\n"
    . "subscriber = sb\n    subscribe = 5-60\n");
passed("$dir/reached.cfg", qr/warning: \S*reached\.cfg:13: subscriber sb \(subscribe = 5-60\) takes topics 10 to 60 of which its publishers send none \(they send 0 to 9\)/,
       'subscribers that some topics reach: the ones that cannot, named');
write_file("$dir/within.cfg", "topology = t2\n    sizes = 64\npublisher = pa\n    topics = 100\nhop\n"
    . "subscriber = sa\n    subscribe = 5-60\n\npublisher = pb\n    topics = 10\nhop\n"
    . "subscriber = sb\n    subscribe = 5-9\n");
passed("$dir/within.cfg", undef, 'subscribers within what their publishers send: quiet');

# --- subscribers of one share whose traffic is far apart: numbered across
# the file, the first region's 5 % are a zipf feed's busiest topics
my @regions = qw(topologies/tree-fanout.cfg --set sizes=64 --set topics=100 --set subscribe=5%);
passed($regions[0], qr/warning: --set subscribe=5%: subscribe = 5%: each of eu-sub's subscribers takes 18\.8 % of its publishers' messages on average, of ap-sub's 5\.0 % \(3\.7 times as much\).*topic_order = uniform/,
       'regions of 5 % of a zipf feed: the most and least named, and the way out',
       @regions[1 .. $#regions], qw(--set topic_order=zipf:1.1));
passed($regions[0], undef, 'regions of 5 % of uniform topics: quiet',
       @regions[1 .. $#regions], qw(--set topic_order=uniform));

# --- a slow subscriber below a steerable broker: its counters come late
passed('topologies/proxy.cfg', qr/warning: consume_ns = 4000000 on sub: broker \(engine steerable\) answers its counters between messages, after up to 1000 sends each waiting for sub \(4\.00 s\), a tenth of the timeout \(2 s\) or more: .*engine = forwarder/,
       'consume_ns that holds a steerable broker past the timeout: the key, both stages, the way out',
       qw(--set timeout=2 --set sub.consume_ns=4000000));
passed('topologies/proxy.cfg', undef, 'a forwarder counts without asking: quiet',
       qw(--set timeout=2 --set sub.consume_ns=4000000 --set broker.engine=forwarder));
passed('topologies/proxy.cfg', undef, 'consume_ns well within the timeout: quiet',
       qw(--set timeout=2 --set sub.consume_ns=100000));
{
    my ($rc, $out, $err) = hopbench('run', 'topologies/proxy.cfg', qw(--sizes 64 --duration 0.3
        --set timeout=2 --set sub.consume_ns=4000000 --quiet --output), "$dir/slow");
    is($rc, 1, 'the run it warned of: exit 1');
    like($err, qr/warning: consume_ns = 4000000 on sub: broker/, '...warned of before it ran');
    like($err, qr/stage broker: no COUNTS within 2\.0 s/,
         '...and its error names the broker and the wait, in the words of every wait for counters');
}

done_testing();
