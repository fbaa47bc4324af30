#!/usr/bin/perl
# The shipped pubsub topologies, run for real: rows, rates, loss, files.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Test::More;

chdir "$FindBin::Bin/..";
my $contract = 'topology,pattern,size,repeat,hop,from,to,transport,sent,'
  . 'received,lost,seconds,msgs_per_sec,mb_per_sec,from_cpu,to_cpu,'
  . 'from_node,to_node';
# runs keep their private ipc directories here, to check they remove them
$ENV{TMPDIR} = tmp();

# Every row: a rate, MB/s that follows from it, lost = sent - received
sub check_rows {
    my ($name, $table) = @_;
    for my $r (@{ $table->{rows} }) {
        my $what = "$name size $r->{size} hop $r->{hop} $r->{from}->$r->{to}";
        ok($r->{msgs_per_sec} > 0, "$what: msgs_per_sec > 0");
        is($r->{lost}, $r->{sent} - $r->{received}, "$what: lost = sent - received");
        ok(abs($r->{mb_per_sec} - $r->{msgs_per_sec} * $r->{size} / 1e6) < 0.01,
           "$what: mb_per_sec = msgs_per_sec x size");
    }
}

# On the way to each subscriber, the hops' losses add up to what its
# sequence numbers prove
sub check_sequence {
    my ($name, $table) = @_;
    my %by_size;
    push @{ $by_size{"$_->{size}/$_->{repeat}"} }, $_ for @{ $table->{rows} };
    for my $key (sort keys %by_size) {
        my @rows = @{ $by_size{$key} };
        my ($last) = sort { $b <=> $a } map { $_->{hop} } @rows;
        my $upstream = 0;
        $upstream += $_->{lost} for grep { $_->{hop} < $last } @rows;
        for my $r (grep { $_->{hop} == $last } @rows) {
            is($r->{seq_lost}, $upstream + $r->{lost},
               "$name $key: sequence numbers prove the loss to $r->{to}");
        }
    }
}

# chain3: hops 1-4 for each size
my $out = tmp();
my ($rc, $stdout, $err) = hopbench('run', 'topologies/chain3.cfg', '--sizes',
    '64,4096', qw(--messages 200000 --format csv --quiet --output), $out);
is($rc, 0, 'chain3: exit 0') or diag $err;
my $t = csv("$out/results.csv");
like(join(',', @{ $t->{columns} }), qr/^\Q$contract\E(,|$)/, 'chain3: contract columns first');
for my $size (64, 4096) {
    my @hops = map { $_->{hop} } grep { $_->{size} == $size } @{ $t->{rows} };
    is("@hops", '1 2 3 4', "chain3 size $size: exactly hops 1-4");
}
check_rows('chain3', $t);
check_sequence('chain3', $t);
my @stdout_lines = split /\n/, $stdout;
like($stdout_lines[0], qr/^\Q$contract\E/, 'chain3: --format csv prints the header first');
is(scalar(grep { /^chain3,/ } @stdout_lines), 8, 'chain3: --format csv prints the rows on stdout');

# the results directory: effective config, metadata, threads
($rc) = hopbench('check', "$out/config.cfg");
is($rc, 0, 'config.cfg is a topology hopbench accepts');
my $meta = decode_json(Hopbench::slurp("$out/metadata.json"));
is($meta->{status}, 'ok', 'metadata: status ok');
like($meta->{libzmq}, qr/^4\.\d+\.\d+$/, 'metadata: libzmq version');
ok(@{ $meta->{numa}{nodes} } >= 1, 'metadata: NUMA nodes');
like($meta->{command_line}, qr/--messages 200000/, 'metadata: command line');
my $threads = csv("$out/threads.csv");
for my $stage (qw(pub p1 p2 p3 sub)) {
    ok((grep { $_->{stage} eq $stage && $_->{thread} eq 'main' } @{ $threads->{rows} }),
       "threads.csv: $stage main thread");
}
for my $stage (qw(pub p1 p2)) {   # p3 and sub share p2's context (inproc)
    ok((grep { $_->{stage} eq $stage && $_->{thread} =~ m{^ZMQbg/IO/} } @{ $threads->{rows} }),
       "threads.csv: $stage has a libzmq I/O thread");
}

# direct over the full sweep: 15 sizes
$out = tmp();
($rc, $stdout, $err) = hopbench(qw(run topologies/direct.cfg --sizes 8..131072
    --duration 0.2 --set warmup=0.05 --quiet --output), $out);
is($rc, 0, 'direct 8..131072: exit 0') or diag $err;
$t = csv("$out/results.csv");
my %sizes = map { $_->{size} => 1 } @{ $t->{rows} };
is(scalar keys %sizes, 15, 'direct: 15 distinct sizes');
check_rows('direct', $t);
like($stdout, qr/direct \(pubsub, capacity\)\s+size 131072 B.*\n.*hop.*msgs\/s.*\n\s+1\s+pub -> sub\s+tcp/,
     'direct: the table shows each size');

# mixed: traffic over inproc, ipc and tcp
$out = tmp();
($rc, undef, $err) = hopbench(qw(run topologies/mixed.cfg --sizes 1024
    --duration 0.3 --quiet --output), $out);
is($rc, 0, 'mixed: exit 0') or diag $err;
$t = csv("$out/results.csv");
for my $transport (qw(inproc ipc tcp)) {
    my ($r) = grep { $_->{transport} eq $transport } @{ $t->{rows} };
    ok($r && $r->{received} > 0 && $r->{msgs_per_sec} > 0, "mixed: $transport hop carries traffic");
}
check_sequence('mixed', $t);

# capacity (the default): back-pressure instead of loss, in messages mode
$out = tmp();
($rc, undef, $err) = hopbench(qw(run topologies/proxy.cfg --sizes 1024
    --messages 50000 --quiet --output), $out);
is($rc, 0, 'proxy capacity: exit 0') or diag $err;
$t = csv("$out/results.csv");
is($_->{lost}, 0, "proxy capacity hop $_->{hop}: nothing lost") for @{ $t->{rows} };
check_sequence('capacity', $t);

# every run removed its private ipc directory
my @left = glob "$ENV{TMPDIR}/hopbench.*";
is("@left", '', 'no ipc directory left behind');
done_testing();
