#!/usr/bin/perl
# Scripted runs: --sweep, JSON, progress, and interrupts that keep rows.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Time::HiRes qw(time sleep);
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();    # the runs' private ipc directories go here

# a sweep over transports, printed as one JSON document
my $out = tmp();
my ($rc, $stdout, $err) = hopbench('run', 'topologies/proxy.cfg', '--sweep',
    'transport=inproc,ipc,tcp', '--sizes', '64,4096', qw(--messages 50000
    --format json --output), $out);
is($rc, 0, 'sweep: exit 0') or diag $err;
my $doc = eval { decode_json($stdout) };
ok($doc, 'sweep: stdout is one valid JSON document') or diag $@;
is($doc->{metadata}{status}, 'ok', 'json: metadata first');
is(scalar @{ $doc->{rows} }, 12, 'json: 3 transports x 2 sizes x 2 hops');
ok(!grep({ !defined $_->{msgs_per_sec} || $_->{msgs_per_sec} !~ /^[\d.]+$/ } @{ $doc->{rows} }),
   'json: rates are numbers');
my $file = decode_json(Hopbench::slurp("$out/results.json"));
is_deeply($file->{rows}, $doc->{rows}, 'results.json holds the same rows');
my $t = csv("$out/results.csv");
ok((grep { $_ eq 'sweep_transport' } @{ $t->{columns} }), 'results.csv: a sweep_transport column');
my %seen = map { $_->{sweep_transport} => 1 } @{ $t->{rows} };
is(join(',', sort keys %seen), 'inproc,ipc,tcp', 'results.csv: the three transports');
for (@{ $t->{rows} }) {
    is($_->{transport}, $_->{sweep_transport}, "size $_->{size} hop $_->{hop}: the hop ran on the swept transport");
    ok($_->{msgs_per_sec} > 0, "sweep $_->{sweep_transport} size $_->{size} hop $_->{hop}: traffic");
}

# two keys: the product, in one file
$out = tmp();
($rc, undef, $err) = hopbench('run', 'topologies/direct.cfg', '--sweep',
    'hwm=100,1000', '--sweep', 'transport=ipc,tcp', qw(--sizes 1024
    --duration 0.1 --set warmup=0.05 --quiet --output), $out);
is($rc, 0, 'two swept keys: exit 0') or diag $err;
$t = csv("$out/results.csv");
my @combos = map { "$_->{sweep_hwm}/$_->{sweep_transport}" } @{ $t->{rows} };
is("@combos", '100/ipc 100/tcp 1000/ipc 1000/tcp', 'two swept keys: every combination');

# --order: interleave runs repeat 1 of every combination, then repeat 2;
# sequential every repeat of one combination, then the next; with a sweep
# and repeats, interleave is the default
sub trial_order {
    my ($t) = @_;
    return join ' ', map { "$_->{sweep_hwm}:$_->{size}:$_->{repeat}" }
        grep { $_->{repeat} =~ /^\d+$/ && $_->{hop} eq '1' } @{ $t->{rows} };
}
my @orderly = ('run', 'topologies/direct.cfg', '--sweep', 'hwm=100,1000',
    '--sizes', '64,128', qw(--repeat 2 --duration 0.05 --set warmup=0.02
    --quiet --output));
my %order = (
    interleave => '100:64:1 100:128:1 1000:64:1 1000:128:1 100:64:2 100:128:2 1000:64:2 1000:128:2',
    sequential => '100:64:1 100:64:2 100:128:1 100:128:2 1000:64:1 1000:64:2 1000:128:1 1000:128:2');
for my $order (qw(interleave sequential auto)) {
    $out = tmp();
    my @how = $order eq 'auto' ? () : ('--order', $order);
    ($rc, $stdout, $err) = hopbench(@orderly, $out, @how);
    is($rc, 0, "--order $order: exit 0") or diag $err;
    $t = csv("$out/results.csv");
    is(trial_order($t), $order{ $order eq 'auto' ? 'interleave' : $order },
       "--order $order: the trials in results.csv, in the order they ran");
    my @medians = map { "$_->{sweep_hwm}:$_->{size}" }
        grep { $_->{repeat} eq 'median' && $_->{hop} eq '1' } @{ $t->{rows} };
    is("@medians", '', "--order $order: no median row under 3 repeats");
    my @blocks = $stdout =~ /size (\d+) B .*hwm=(\d+)/g;
    is("@blocks", '64 100 128 100 64 1000 128 1000',
       "--order $order: the table, a block per combination and size, in sweep order");
}
($rc, undef, $err) = hopbench(@orderly, tmp(), '--order', 'shuffle');
is($rc, 2, '--order shuffle: exit 2');
like($err, qr/unknown order 'shuffle' \(auto, sequential, interleave\)/, '--order shuffle: says the choices');

# bad values are refused before anything runs
my $none = tmp() . '/never';
($rc, undef, $err) = hopbench('run', 'topologies/proxy.cfg', '--sweep',
    'transport=inproc,tpc', '--output', $none);
is($rc, 2, 'bad sweep value: exit 2');
like($err, qr/--sweep transport=tpc: unknown transport 'tpc'/, 'bad sweep value: named');
ok(!-e $none, 'bad sweep value: nothing ran');
($rc, undef, $err) = hopbench(qw(run topologies/proxy.cfg --sweep engine=zproxy --sweep transport=inproc --set mode=flood));
is($rc, 2, 'impossible combination: exit 2');
like($err, qr/zproxy .* cannot be inproc/, 'impossible combination: says why');

# progress: plain lines on a pipe, nothing with --quiet, one line on a tty
($rc, undef, $err) = hopbench('run', 'topologies/direct.cfg', '--sizes', '64,128',
    '--duration', '0.1', '--output', tmp());
like($err, qr/size 64 done.*\n.*size 128 done/, 'progress on a pipe: a line per size');
($rc, undef, $err) = hopbench(qw(run topologies/direct.cfg --sizes 64 --duration 0.1 --quiet --output), tmp());
is($err, '', '--quiet: nothing on stderr');
SKIP: {
    skip 'no script(1) to give hopbench a terminal', 2
        unless system('command -v script >/dev/null') == 0;
    my $log = tmp() . '/tty';
    my $run = './hopbench run topologies/direct.cfg --sizes 64,128 --duration 0.2 '
        . '--output ' . tmp() . ' >/dev/null';
    system("script -qec '$run' $log >/dev/null 2>&1");
    my $text = Hopbench::slurp($log);
    like($text, qr/\r\e\[K\[1\/1\] size 128 B \(2\/2\) repeat 1\/1  elapsed \d+s  ETA \d+s/,
         'progress on a terminal: one updating line with size, repeat, elapsed, ETA');
    unlike($text, qr/size 64 done/, 'progress on a terminal: no plain lines');
}

# SIGINT (SIGTERM) once a size has finished: out within 3 s, exit 130 (143),
# rows kept, nothing left
for my $signal (qw(INT TERM)) {
    $out = tmp();
    my $pid = fork();
    if ($pid == 0) {
        open STDOUT, '>', '/dev/null';
        open STDERR, '>', "$out.err";
        exec './hopbench', qw(run topologies/mixed.cfg --sizes 8..131072 --messages 300000
            --format csv --quiet --output), $out;
    }
    # the signal comes once a size has finished (its rows are in
    # results.csv), however long a busy machine takes to get there
    my $until = time + 60;
    while (time < $until) {
        my @lines = -e "$out/results.csv" ? split(/\n/, Hopbench::slurp("$out/results.csv")) : ();
        last if @lines >= 2;
        sleep 0.1;
    }
    my $sent = time;
    kill $signal, $pid;
    waitpid($pid, 0);
    my $took = time - $sent;
    my $status = $? >> 8;
    is($status, $signal eq 'INT' ? 130 : 143, "SIG$signal: exit status");
    ok($took < 3, "SIG$signal: ended within 3 s") or diag "took $took s";
    my $rows = csv("$out/results.csv");
    ok(@{ $rows->{rows} } >= 1, "SIG$signal: results.csv keeps finished sizes");
    ok(!grep({ $_->{msgs_per_sec} !~ /^[\d.]+$/ } @{ $rows->{rows} }), "SIG$signal: every row complete");
    my $meta = decode_json(Hopbench::slurp("$out/metadata.json"));
    is($meta->{status}, 'interrupted', "SIG$signal: metadata says interrupted");
    my @left = glob "$ENV{TMPDIR}/hopbench.*";
    is("@left", '', "SIG$signal: the private ipc directory is gone");
}
done_testing();
