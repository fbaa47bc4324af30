#!/usr/bin/perl
# CURVE-encrypted tcp hops: traffic flows, the metadata says so, and the
# broker's socket really speaks CURVE (its ZMTP greeting names it).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use IO::Socket::INET;
use JSON::PP;
use Time::HiRes qw(sleep);
use Test::More;

chdir "$FindBin::Bin/..";
$ENV{TMPDIR} = tmp();

my $out = tmp();
my ($rc, undef, $err) = hopbench(qw(run topologies/proxy.cfg --set transport=tcp
    --set curve=true --sizes 1024 --messages 50000 --quiet --output), $out);
is($rc, 0, 'curve: exit 0') or diag $err;
my @rows = @{ csv("$out/results.csv")->{rows} };
ok($_->{transport} eq 'tcp' && $_->{received} > 0 && $_->{msgs_per_sec} > 0,
   "curve hop $_->{hop}: encrypted tcp carries traffic") for @rows;
my $meta = decode_json(Hopbench::slurp("$out/metadata.json"));
is($meta->{curve}, 'hop1 hop2', 'metadata: both hops encrypted');

# The mechanism a server announces in its ZMTP 3 greeting (bytes 12..31):
# send only a signature and version, so it has no mechanism of ours to
# refuse before it has told its own
sub mechanism {
    my ($port) = @_;
    my $sock = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 2) or return '';
    $sock->syswrite("\xff" . ("\0" x 8) . "\x7f" . "\x03\x00");
    my $greeting = '';
    while (length $greeting < 32) {
        my $n = $sock->sysread(my $buf, 64) or last;
        $greeting .= $buf;
    }
    my $name = substr($greeting, 12, 20) // '';
    $name =~ s/[\0 ]+$//;
    return $name;
}

for my $curve (qw(true false)) {
    my $probe = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1:0');
    my $port = $probe->sockport;
    close $probe;
    my $pid = fork();
    if ($pid == 0) {
        open STDOUT, '>', '/dev/null';
        open STDERR, '>', '/dev/null';
        exec './hopbench', qw(run topologies/proxy.cfg --set transport=tcp --sizes 64
            --duration 3 --quiet --output), tmp(), '--set', "curve=$curve",
            '--set', "hop2.endpoint=tcp://127.0.0.1:$port";
    }
    my $seen = '';
    for (1 .. 30) {
        sleep 0.1;
        $seen = mechanism($port) and last;
    }
    waitpid($pid, 0);
    is($seen, $curve eq 'true' ? 'CURVE' : 'NULL', "curve=$curve: the broker's greeting says $seen");
}

($rc, undef, $err) = hopbench(qw(check topologies/proxy.cfg --set curve=true --set engine=zproxy));
is($rc, 2, 'curve with zproxy: exit 2');
like($err, qr/zproxy: hopbench does not give it CURVE keys/, 'curve with zproxy: says why');
done_testing();
