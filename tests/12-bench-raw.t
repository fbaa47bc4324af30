#!/usr/bin/perl
# make bench's baseline, tests/bench/raw, does the work it claims
# (docs/BENCHMARKS.md, "The raw program"): every case it runs ends with its
# one line, and with back-pressure every message arrives in sequence
# (zero-copy's ring never reuses a buffer in flight, a topic keeps the
# sequence after it); a flood at a tiny HWM shows the check reads the
# sequence; a size that cannot hold it is refused.  Short windows: the
# figures are not what is tested.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();

sub raw {
    my (@args) = @_;
    my $dir = tmp();
    my $cmd = join ' ', map { quotemeta } 'tests/bench/raw', @args,
        '--warmup', '0.02', '--duration', '0.1', '--timeout', '20';
    system("timeout -k 5 60 $cmd >$dir/out 2>$dir/err");
    return ($? == -1 ? 255 : $? >> 8, Hopbench::slurp("$dir/out"),
            Hopbench::slurp("$dir/err"));
}

my $num = qr/[0-9.]+/;
my $line = qr/^case=\w+ transport=\w+ size=\d+ pub=\w+ msgs_per_sec=$num received=(\d+) seconds=$num receiver_cpu_ns_per_msg=$num sender_cpu_ns_per_msg=$num out_of_sequence=(\d+)$/;

# Back-pressure: nothing dropped, so every message is the next one
for my $args ('--case direct --transport inproc --size 8',
              '--case direct --transport inproc --size 1024 --zerocopy',
              '--case direct --transport tcp --size 1024 --zerocopy',
              '--case direct --transport tcp --size 16 --topics 1000',
              '--case direct --transport inproc --size 64 --topics 10 --zerocopy',
              '--case proxy --transport inproc --size 64',
              '--case direct --transport ipc --size 8 --no-sequence') {
    my ($rc, $out, $err) = raw(split(' ', $args), '--nodrop');
    is($rc, 0, "raw $args: exit 0") or diag $err;
    #  (what it took in the window can be nothing on a starved machine:
    #  its first message arrived before the window, or it says so)
    my ($received, $jumps) = $out =~ $line;
    ok(defined $received, "raw $args: its line") or diag $out;
    is($jumps, 0, "raw $args: every message in sequence");
}
my ($rc, $out, $err) = raw(qw(--case pushpull --transport ipc --size 64));
is($rc, 0, 'pushpull: exit 0') or diag $err;
like($out, $line, 'pushpull: its line');

# A flood into a pipe of two messages drops most: the receiver sees the
# sequence jump
($rc, $out, $err) = raw(qw(--case direct --transport inproc --size 8 --hwm 1));
is($rc, 0, 'flood at hwm 1: exit 0') or diag $err;
my ($received, $jumps) = $out =~ $line;
ok(defined $jumps && $jumps > 0, 'flood at hwm 1: messages out of sequence')
    or diag $out;

# What a message must hold
($rc, $out, $err) = raw(qw(--size 12 --topics 10));
is($rc, 2, 'a topic and the sequence in 12 bytes: exit 2');
like($err, qr/--size 12 cannot hold the topic and the 8-byte sequence \(16 bytes\)/,
     '... saying what it needs');
($rc, $out, $err) = raw(qw(--size 4));
is($rc, 2, 'the sequence in 4 bytes: exit 2');
($rc, $out, $err) = raw(qw(--topics 3 --no-sequence));
is($rc, 2, '--topics without the sequence: exit 2');
like($err, qr/--topics needs the sequence/, '... saying why');

done_testing();
