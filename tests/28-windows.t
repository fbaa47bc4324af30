#!/usr/bin/perl
# Exact windows: every counter is taken at the window's two edges, the
# same two instants for every link (src/trial/trial_edge.c), so on a
# lossless capacity path adjacent links' rates differ only by what the
# queues between them held more or less at the end than at the start.
# Over the shipped linear topologies: the median pair differs by no more
# messages than the queues between them can hold (edges taken at two
# different instants would differ by the rate times the skew), and each
# pair within 2 % or within what its queues hold; and every row of a
# trial has one window.  No bound in per cent: how full a queue is at an
# edge is the machine's noise, how much it can hold is not.  A window of
# 0.3 s: what the queues hold is messages, the same in a window of any
# length.  One repeat of each (two under make check-long).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";

my (@diffs, @held, @beyond);
my @runs = (['proxy'], ['proxy', qw(--set transport=ipc)],
            ['proxy', qw(--set transport=inproc)], ['chain3'], ['mixed'],
            ['proxy-procs']);
for my $run (@runs) {
    my ($file, @set) = @$run;
    my $name = join ' ', $file, @set;
    my $out = tmp();
    my ($rc, undef, $err) = hopbench('run', "topologies/$file.cfg", '--sizes', '64,1024', qw(
        --duration 0.3 --repeat), long() ? 2 : 1, qw(--quiet --output), $out, @set);
    is($rc, 0, "$name: exit 0") or diag $err;
    my %trials;
    for my $row (@{ csv("$out/results.csv")->{rows} }) {
        next if $row->{repeat} !~ /^\d+$/; #  the medians' rows
        push @{ $trials{"$row->{size} B, repeat $row->{repeat}"} }, $row;
    }
    ok(%trials >= (long() ? 4 : 2), "$name: " . scalar(keys %trials) . ' trials');
    for my $trial (sort keys %trials) {
        my @rows = sort { $a->{hop} <=> $b->{hop} } @{ $trials{$trial} };
        my %seconds = map { $_->{seconds} => 1 } @rows;
        is(scalar(keys %seconds), 1, "$name $trial: one window for every link ("
           . join(', ', sort keys %seconds) . ' s)');
        for my $i (1 .. $#rows) {
            my ($up, $down) = @rows[$i - 1, $i];
            next if $up->{lost} || $down->{lost} || $up->{msgs_per_sec} <= 0;
            my $diff = abs($down->{msgs_per_sec} / $up->{msgs_per_sec} - 1);
            my $tcp = $down->{transport} eq 'tcp';
            #  what the queues between the two counting points can hold
            my $held = abs($down->{msgs_per_sec} - $up->{msgs_per_sec}) * $up->{seconds};
            push @diffs, $diff unless $tcp;
            push @held, $held / queues($down) unless $tcp;
            # a stage that waited for a CPU answered for its edge that
            # much later than its neighbour (load 35: 5,159 messages
            # between an inproc proxy's two links, 3,000 queued): the
            # machine's, noted; the median above still holds every pair
            my $starved = $up->{starved} == 1 || $down->{starved} == 1;
            my $beyond = sprintf('%s %s hop %d/%d: %.2f %%, %.0f messages, more than its queues hold (%.0f)%s',
                $name, $trial, $up->{hop}, $down->{hop}, 100 * $diff, $held, queues($down),
                $starved ? ', starved' : '');
            if (!$tcp && $diff > 0.02 && $held > queues($down)) {
                $starved ? note($beyond) : push @beyond, $beyond;
            }
            note sprintf '%s %s hop %d/%d (%s): %.4f %%%s', $name, $trial, $up->{hop},
                $down->{hop}, $down->{transport}, 100 * $diff, $tcp ? ' (not held)' : '';
        }
    }
}
my @sorted = sort { $a <=> $b } @diffs;
ok(@sorted >= (long() ? 20 : 10), scalar(@sorted) . ' pairs of adjacent lossless links');
{
    my $median = $sorted[ int(@sorted / 2) ];
    my @share = sort { $a <=> $b } @held;
    my $middle = $share[ int(@share / 2) ];
    ok($middle <= 1, sprintf 'adjacent links: the median of %d pairs differs by %.1f %% of '
       . 'what its queues hold (rate difference %.4f %%)', scalar(@sorted), 100 * $middle, 100 * $median);
    note sprintf 'adjacent links: worst %.4f %%', 100 * $sorted[-1];
}
is(join("\n", @beyond), '', 'adjacent links: each within 2 %, or within what the '
   . 'queues between them hold, where no stage of the two was starved');

# The most messages the queues of a hop can hold between its sender's
# count and its receiver's: both pipes' HWM (1000 each unless set), and
# over ipc the two socket buffers (the kernel's defaults, in bytes) and
# libzmq's 8 KiB batches at each end
sub queues {
    my ($row) = @_;
    my $held = 2 * 1000 + 1000; #  HWMs, and a proxy's burst between reads
    if ($row->{transport} eq 'ipc') {
        my $bytes = 16384;
        for my $f (qw(wmem_default rmem_default)) {
            open my $fh, '<', "/proc/sys/net/core/$f" or next;
            $bytes += (<$fh> // 0);
        }
        $held += $bytes / $row->{size};
    }
    return $held;
}
done_testing();
