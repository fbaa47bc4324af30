#!/usr/bin/perl
# make anchors without its downloads: the equivalent topologies are valid
# and say which tool they stand for; build-tools turns a machine's apt
# sources into deb-src entries of its own; run-anchors, given stand-ins
# for libzmq's perf tools, runs every cell against the real hopbench and
# writes the CSV, the table and the charts (CI never fetches or runs the
# real tools: `make anchors` does, by hand).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";

# --- topologies/libzmq/: valid, and each names its tool first ---
my @topologies = sort glob 'topologies/libzmq/*.cfg';
is(scalar @topologies, 5, 'five equivalent topologies');
for my $file (@topologies) {
    my ($tool) = $file =~ m{/(\w+)\.cfg$};
    my ($rc, undef, $err) = hopbench('check', $file);
    is($rc, 0, "check $file: exit 0") or diag $err;
    like(Hopbench::slurp($file), qr/\A# \Q$tool\E: libzmq's \Q$tool\E/,
         "$file: its first line names $tool");
}

# --- build-tools --sources-only: deb-src twins of the deb entries ---
my $etc = tmp();
mkdir "$etc/sources.list.d" or die "mkdir: $!";
write_file("$etc/sources.list", <<'EOF');
# a comment
deb http://deb.example.org/debian bookworm main contrib
deb [signed-by=/usr/share/keyrings/x.gpg] http://deb.example.org/debian-security bookworm-security main
deb-src http://deb.example.org/debian bookworm main
deb cdrom:[Debian 12]/ bookworm main
EOF
write_file("$etc/sources.list.d/extra.list", "deb https://extra.example.org/apt stable main\n");
write_file("$etc/sources.list.d/off.list.disabled", "deb http://off.example.org/apt x main\n");
write_file("$etc/sources.list.d/debian.sources", <<'EOF');
Types: deb
# http://snapshot.example.org/
URIs: http://deb.example.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://srconly.example.org/debian
Suites: bookworm
Components: main

Types: deb
Enabled: no
URIs: http://off.example.org/debian
Suites: bookworm
Components: main
EOF
my $out = tmp();
my $rc = system("ANCHORS_APT_ETC='$etc' tests/anchors/build-tools --sources-only '$out' 2>$out/err");
is($rc, 0, 'build-tools --sources-only: exit 0') or diag Hopbench::slurp("$out/err");
is(Hopbench::slurp("$out/apt/sources.list"), <<'EOF', 'one-line entries: deb became deb-src, the rest left out');
deb-src http://deb.example.org/debian bookworm main contrib
deb-src [signed-by=/usr/share/keyrings/x.gpg] http://deb.example.org/debian-security bookworm-security main
deb-src https://extra.example.org/apt stable main
EOF
is(Hopbench::slurp("$out/apt/sources.list.d/machine.sources"), <<'EOF', 'deb822: the enabled deb paragraph, as deb-src');
Types: deb-src
URIs: http://deb.example.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

EOF
my $conf = Hopbench::slurp("$out/apt/apt.conf");
like($conf, qr/^Dir::Cache "\Q$out\E\/apt\/cache";$/m, 'apt.conf: a private cache');
like($conf, qr/^#clear APT::Update::Post-Invoke-Success;$/m, 'apt.conf: no update hooks');

my $empty = tmp();
$rc = system("ANCHORS_APT_ETC='$empty' tests/anchors/build-tools --sources-only '$out' 2>$out/err");
isnt($rc, 0, 'no deb entries at all: build-tools fails');
like(Hopbench::slurp("$out/err"), qr/no deb entries in \Q$empty\E/, '... and says so');

# --- run-anchors over stand-in tools: every cell, the CSV, the charts ---
my $gnuplot = grep { -x "$_/gnuplot" } split /:/, $ENV{PATH};
if (!$gnuplot) {    # run-anchors fails without its charts
    diag 'no gnuplot on PATH (Debian: gnuplot-nox): run-anchors not tested';
    done_testing();
    exit 0;
}
my $bin = tmp();
my %fake = (
    local_thr  => 'echo "mean throughput: 200000 [msg/s]"',
    inproc_thr => 'echo "mean throughput: 300000 [msg/s]"',
    proxy_thr  => 'echo "mean throughput: 400000 [msg/s]"',
    proxy_thr_alloc => 'echo "mean throughput: 100000 [msg/s]"',
    remote_thr => 'exec sleep 30',    # over ipc it is ended; over tcp it would hang
    local_lat  => 'exit 0',
    remote_lat => 'echo "average latency: 40.000 [us]"',
    inproc_lat => 'echo "average latency: 5.000 [us]"',
);
# remote_thr over tcp must end by itself: only its ipc run is ended early
$fake{remote_thr} = 'case "$1" in ipc://*) exec sleep 30;; esac';
# each stand-in notes the CPUs it may run on, and hopbench its arguments
my $seen = "echo \"\$(basename \"\$0\") \$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)\" >>'$bin/cpus'";
for my $name (keys %fake) {
    write_file("$bin/$name", "#!/bin/sh\n$seen\n$fake{$name}\n");
    chmod 0755, "$bin/$name";
}
write_file("$bin/hopbench", "#!/bin/sh\n$seen\necho \"\$*\" >>'$bin/args'\nexec '$FindBin::Bin/../hopbench' \"\$@\"\n");
chmod 0755, "$bin/hopbench";
# Two CPUs of this process's set, the second given as the client's
my @allowed = map { /^(\d+)-(\d+)$/ ? ($1 .. $2) : $_ } split /,/,
    (Hopbench::slurp('/proc/self/status') =~ /^Cpus_allowed_list:\s*(\S+)/m)[0] // '';
my @pin = @allowed >= 2 ? @allowed[1, 0] : ();
my $res = tmp();
my $env = "ANCHORS_BIN='$bin' ANCHORS_OUT='$res/anchors.csv' ANCHORS_SIZES=64 "
    . 'ANCHORS_PAIRS=1 ANCHORS_SECONDS=0.05 ANCHORS_WARMUP=0.05 ANCHORS_TIMEOUT=30 '
    . "ANCHORS_BUSY=1 ANCHORS_WARMED=0.1 ANCHORS_HOPBENCH='$bin/hopbench'";
my $pin_env = @pin ? "ANCHORS_PIN=$pin[0],$pin[1]" : 'ANCHORS_PIN=0';
$rc = system("$env $pin_env timeout -k 5 240 tests/anchors/run-anchors >$res/out 2>$res/err");
is($rc, 0, 'run-anchors with stand-in tools: exit 0') or diag Hopbench::slurp("$res/err");
my $csv = csv("$res/anchors.csv");
is(join(',', @{$csv->{columns}}),
   'tool,transport,size,pairs,libzmq_msgs_per_sec,hopbench_msgs_per_sec,ratio,note',
   'anchors.csv: the header');
my %row = map { ("$_->{tool} $_->{transport}" => $_) } @{$csv->{rows}};
is_deeply([sort keys %row],
          ['inproc_lat inproc', 'inproc_thr inproc', 'local_lat ipc', 'local_lat tcp',
           'local_thr ipc', 'local_thr tcp', 'proxy_thr inproc', 'proxy_thr_alloc inproc'],
          'anchors.csv: a row per tool and transport');
for my $key (sort keys %row) {
    my $r = $row{$key};
    ok($r->{pairs} == 1 && $r->{size} == 64 && $r->{hopbench_msgs_per_sec} > 0,
       "$key: one pair at 64 B, a hopbench figure");
    my $lat = $r->{tool} =~ /_lat$/;
    my $want = $lat ? $r->{libzmq_msgs_per_sec} / $r->{hopbench_msgs_per_sec}
                    : $r->{hopbench_msgs_per_sec} / $r->{libzmq_msgs_per_sec};
    # anchors.csv prints the ratio to 4 decimals: a small one (hopbench's
    # latency on a busy machine far above the stand-in's 5 us) is known
    # to 0.00005, not to 0.1 % of itself
    ok(abs($r->{ratio} - $want) <= 1e-3 * $want + 5e-5,
       sprintf("$key: ratio %s (%s against %.6f)", $lat ? 'libzmq / hopbench' : 'hopbench / libzmq',
               $r->{ratio}, $want));
}
like($row{'local_thr tcp'}{note}, qr/^with a 0\.1 s warm-up hopbench reads \S+ \(ratio [0-9.]+\)(;|$)/,
     'throughput: the note gives hopbench with its warm-up');
is($row{'local_lat tcp'}{libzmq_msgs_per_sec}, '40.000', 'latency cells in microseconds, as the tools print');
like($row{'proxy_thr inproc'}{note}, qr/zmq_msg_copy.*reads 100k/, 'proxy_thr: the allocation, with proxy_thr_alloc\'s figure');
is($row{'proxy_thr_alloc inproc'}{hopbench_msgs_per_sec}, $row{'proxy_thr inproc'}{hopbench_msgs_per_sec},
   'proxy_thr_alloc: against the same hopbench runs');
my $table = Hopbench::slurp("$res/out");
like($table, qr/^tool\s+via\s+size\s+pairs/m, 'a table on stdout');
like($table, qr/^PUSH\/PULL \(local_thr, inproc_thr\): 3 cells, geometric mean ratio/m, 'the PUSH/PULL summary');
for my $png (qw(tcp ipc inproc latency)) {
    my $bytes = Hopbench::slurp("$res/anchors/$png.png");
    is(substr($bytes, 0, 8), "\x89PNG\r\n\x1a\n", "chart $png.png");
}
my $runs = csv("$res/anchors-runs.csv");
is(scalar @{$runs->{rows}}, 19, 'anchors-runs.csv: every run (hopbench twice for throughput, proxy_thr_alloc too)');

# Pinned: each tool process of a pair on its CPU, hopbench's stages the
# same with their I/O threads; the one-process tools and hopbench for them
# confined to both CPUs
sub cpus_of {
    my ($program) = @_;
    my %sets = map { (split ' ')[1] => 1 } grep { /^\Q$program\E / } split /\n/, Hopbench::slurp("$bin/cpus");
    return join ' ', sort keys %sets;
}
sub same_set { my ($list, @want) = @_; return join(',', map { /^(\d+)-(\d+)$/ ? ($1 .. $2) : $_ } split /,/, $list) eq join(',', sort { $a <=> $b } @want) }
SKIP: {
    skip 'pinning: this process may use one CPU', 8 unless @pin;
    my ($client, $server) = @pin;
    for my $program (qw(remote_thr remote_lat)) {
        is(cpus_of($program), $client, "pinned: $program (the client) on CPU $client alone");
    }
    for my $program (qw(local_thr local_lat)) {
        is(cpus_of($program), $server, "pinned: $program (the server) on CPU $server alone");
    }
    ok(same_set(cpus_of('inproc_thr'), @pin) && same_set(cpus_of('proxy_thr'), @pin),
       'inproc_thr, proxy_thr: confined to both CPUs (' . cpus_of('inproc_thr') . ')');
    my @args = split /\n/, Hopbench::slurp("$bin/args");
    my ($thr) = grep { m{libzmq/local_thr\.cfg} } @args;
    like($thr // '', qr/--set remote_thr\.cpus=$client --set remote_thr\.io_cpus=stage --set local_thr\.cpus=$server --set local_thr\.io_cpus=stage/,
         'hopbench for local_thr: its stages on the same CPUs, with their I/O threads');
    ok(!(grep { m{libzmq/(inproc|proxy)_\w+\.cfg} && /\.cpus=/ } @args), 'hopbench for the inproc tools: no stage pinned');
    like($row{'local_thr tcp'}{note}, qr/pinned: client on CPU $client and server on CPU $server with their libzmq threads/,
         'the note says how the pair was pinned');
}
unlink "$bin/cpus", "$bin/args";
$rc = system("$env ANCHORS_PIN=0 ANCHORS_TOOLS=local_thr ANCHORS_TRANSPORTS=tcp timeout -k 5 120 tests/anchors/run-anchors >$res/out 2>$res/err");
is($rc, 0, 'ANCHORS_PIN=0: exit 0') or diag Hopbench::slurp("$res/err");
ok(same_set(cpus_of('local_thr'), @allowed) && same_set(cpus_of('remote_thr'), @allowed),
   'ANCHORS_PIN=0: the tools free on every CPU of this process (' . cpus_of('local_thr') . ')');
unlike(Hopbench::slurp("$bin/args"), qr/\.cpus=/, 'ANCHORS_PIN=0: no hopbench stage pinned');
like(Hopbench::slurp("$res/out"), qr/^nothing pinned \(ANCHORS_PIN=0\)$/m, 'ANCHORS_PIN=0: says so');
# More pairs where the per-pair ratios spread: the spread decides, up to
# ANCHORS_MAX_PAIRS.  Known ratios, whatever the machine does: a
# stand-in hopbench whose results.csv always reads 150000 msgs/s, against an
# inproc_thr that reads 300000, 400000, 500000, ... (one more 100000 a
# run): the per-pair ratios are 0.5, 0.375, ..., a spread of about 50 %
my $known = tmp();
write_file("$known/hopbench", "#!/bin/sh\n"
    . "while [ \$# -gt 0 ]; do [ \"\$1\" = --output ] && out=\$2; shift; done\nmkdir -p \"\$out\"\n"
    . "printf 'topology,pattern,size,repeat,hop,msgs_per_sec\\ninproc,pubsub,64,1,1,150000\\n' >\"\$out/results.csv\"\n");
write_file("$known/inproc_thr", "#!/bin/sh\nn=\$(cat '$known/count' 2>/dev/null || echo 0)\n"
    . "echo \$((n + 1)) >'$known/count'\necho \"mean throughput: \$((300000 + 100000 * n)) [msg/s]\"\n");
chmod 0755, "$known/hopbench", "$known/inproc_thr";
symlink("$bin/$_", "$known/$_") for grep { $_ ne 'inproc_thr' } keys %fake;
for my $case ([0, 3, 'a spread over 0 % gets pairs up to ANCHORS_MAX_PAIRS'],
              [100, 2, 'a spread under 10000 % gets none']) {
    my ($spread, $pairs, $name) = @$case;
    unlink "$known/count";
    $rc = system("$env ANCHORS_BIN='$known' ANCHORS_HOPBENCH='$known/hopbench' ANCHORS_PIN=0 "
                 . "ANCHORS_TOOLS=inproc_thr ANCHORS_PAIRS=2 ANCHORS_MAX_PAIRS=3 "
                 . "ANCHORS_SPREAD=$spread timeout -k 5 120 tests/anchors/run-anchors >$res/out 2>$res/err");
    is($rc, 0, "ANCHORS_SPREAD=$spread: exit 0") or diag Hopbench::slurp("$res/err");
    my ($cell) = @{csv("$res/anchors.csv")->{rows}};
    is($cell ? $cell->{pairs} : 'none', $pairs, "$name ($pairs pairs)");
}
like(Hopbench::slurp("$res/out"), qr/; 0 cells given more pairs, up to 3 \(their per-pair ratios spread over 10000% of their median\)$/m,
     'the summary says how many cells got more pairs');
$rc = system("$env ANCHORS_MAX_PAIRS=x tests/anchors/run-anchors >$res/out 2>$res/err");
is($rc >> 8, 2, 'ANCHORS_MAX_PAIRS=x: exit 2');
like(Hopbench::slurp("$res/err"), qr/ANCHORS_MAX_PAIRS='x': a whole number of pairs/, '... says what it takes');
$rc = system("$env ANCHORS_PIN=0,0 tests/anchors/run-anchors >$res/out 2>$res/err");
is($rc >> 8, 2, 'ANCHORS_PIN=0,0: exit 2');
like(Hopbench::slurp("$res/err"), qr/ANCHORS_PIN='0,0': two different CPUs/, 'ANCHORS_PIN=0,0: says why');
$rc = system("$env ANCHORS_PIN=99999,0 tests/anchors/run-anchors >$res/out 2>$res/err");
is($rc >> 8, 2, 'ANCHORS_PIN with a CPU outside the set: exit 2');
like(Hopbench::slurp("$res/err"), qr/CPU 99999 is not in this process's set/, '... names the CPU');

# A tool that fails: its cell is named, the others still run, exit 1
write_file("$bin/inproc_lat", "#!/bin/sh\necho 'error in zmq_bind: boom'\nexit 1\n");
$rc = system("$env ANCHORS_TOOLS=inproc_lat,inproc_thr timeout -k 5 120 tests/anchors/run-anchors >$res/out 2>$res/err");
is($rc >> 8, 1, 'a failing tool: exit 1');
like(Hopbench::slurp("$res/out"), qr/inproc_lat inproc 64: calibration: inproc_lat exited 1: error in zmq_bind: boom/,
     'the note names the cell and what the tool said');
like(Hopbench::slurp("$res/err"), qr/no pair for inproc_lat inproc 64/, 'stderr names the cell without a pair');
ok((grep { $_->{tool} eq 'inproc_thr' } @{csv("$res/anchors.csv")->{rows}}), 'the other cell is in the CSV');

# A client that fails ends its server at once (no wait for the time limit)
write_file("$bin/local_lat", "#!/bin/sh\nexec sleep 30\n");
write_file("$bin/remote_lat", "#!/bin/sh\necho 'error in zmq_connect: nope'\nexit 1\n");
my $t0 = time;
$rc = system("$env ANCHORS_TOOLS=local_lat ANCHORS_TRANSPORTS=tcp timeout -k 5 120 tests/anchors/run-anchors >$res/out 2>$res/err");
is($rc >> 8, 1, 'a failing client: exit 1');
like(Hopbench::slurp("$res/out"), qr/local_lat tcp 64: calibration: remote_lat exited 1: error in zmq_connect: nope/,
     'the note names the client and what it said');
ok(time - $t0 < 20, 'its server was ended, not waited for (' . (time - $t0) . ' s)');
done_testing();
