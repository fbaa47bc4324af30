#!/usr/bin/perl
# Errors found after loading (shape, combinations of keys, the plan: CPU
# lists, nodes, placement, endpoints) name the line of the key that caused
# them, or the --set / --sweep that gave it, as parse errors do; numbers in
# them are the user's text.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $dir = tmp();

# name => [ file, extra arguments, what stderr must say ]
my @cases = (
    [ 'proxy-count', "topology = t\npublisher = a\nhop\nproxy = p\n    io_threads = 1\n    count = 2\nhop\nsubscriber = b\n",
      [], qr/proxy-count\.cfg:6: count is for the first and last stages/ ],
    [ 'zproxy-hwm', "topology = t\n    engine = zproxy\npublisher = a\nhop\n    curve = false\n    hwm = 10\nproxy = p\nhop\nsubscriber = b\n",
      [], qr/zproxy-hwm\.cfg:6: engine zproxy keeps libzmq's HWM of 1000; hop 1 asks for 10/ ],
    [ 'zproxy-set', "topology = t\npublisher = a\nhop\nproxy = p\n    engine = zproxy\nhop\nsubscriber = b\n",
      [ '--set', 'hop2.hwm=7' ], qr/: --set hop2\.hwm=7: engine zproxy keeps libzmq's HWM of 1000; hop 2 asks for 7/ ],
    [ 'zproxy-inproc', "topology = t\n    transport = inproc\npublisher = a\nhop\nproxy = p\n    engine = zproxy\nhop\nsubscriber = b\n",
      [], qr/zproxy-inproc\.cfg:2: engine zproxy runs in czmq's own context: hop 1 cannot be inproc/ ],
    [ 'own-inproc', "topology = t\npublisher = a\nhop = inproc\nsubscriber = b\n    io_threads = 1\n    process = own\n",
      [], qr/own-inproc\.cfg:6: stage 'b' runs in its own process: hop 1 cannot be inproc/ ],
    [ 'rate-sizes', "topology = t\n    rate = 100\n    sizes = 8,64\npublisher = a\nhop\nsubscriber = b\n",
      [], qr/rate-sizes\.cfg:3: rate needs sizes of at least 16 bytes .* sizes has 8/ ],
    [ 'engine-sub', "topology = t\npublisher = a\nhop\nsubscriber = b\n    io_threads = 1\n    engine = forwarder\n",
      [], qr/engine-sub\.cfg:6: engine is a proxy key; 'b' is a subscriber/ ],
);
# The plan: CPU lists, nodes and the policy, checked against this machine
my $stages = "topology = t\n    placement = %s\npublisher = pub\nhop\nsubscriber = sub\n    %s\n";
push @cases,
    [ 'cpus-open', sprintf($stages, 'none', 'cpus = 0-'), [], qr/cpus-open\.cfg:6: sub: cpus '0-': expected a CPU number/ ],
    [ 'cpus-abc', sprintf($stages, 'none', 'cpus = abc'), [], qr/cpus-abc\.cfg:6: sub: cpus 'abc': expected a CPU number/ ],
    [ 'cpus-none', sprintf($stages, 'none', 'cpus = 4095'), [], qr/cpus-none\.cfg:6: sub: cpus '4095': CPU 4095 does not exist on this machine/ ],
    [ 'node-99', sprintf($stages, 'none', 'node = 99'), [], qr/node-99\.cfg:6: sub: node 99 does not exist \(this machine has node/ ],
    [ 'cpus-set', sprintf($stages, 'none', 'count = 1'), [ '--set', 'pub.cpus=4000' ], qr/: --set pub\.cpus=4000: pub: cpus '4000': CPU 4000 does not exist/ ],
    [ 'spread', sprintf($stages, 'spread', 'count = 1'), [ '--machine', 'numa/xeon-gold-6130-1s.cfg' ],
      qr/spread\.cfg:2: spread needs 2 NUMA nodes; xeon-gold-6130-1s has 1/ ],
    [ 'compact', sprintf($stages, 'compact', 'count = 4'), [ '--machine', 'numa/vm-2x2.cfg', '--set', 'siblings=false' ],
      qr/compact\.cfg:2: compact: 5 stage threads need 5 CPUs on node 0, it has 2/ ],
    [ 'node-full', sprintf($stages, 'none', "node = 1\n    count = 3"), [ '--machine', 'numa/vm-2x2.cfg' ],
      qr/node-full\.cfg:6: node requests: 3 stage threads need 3 CPUs on node 1, it has 2/ ];
# Numbers in messages are the user's text, and 1e9 is refused the same way
# in every place a whole number goes
my $sized = "topology = t\n    sizes = %s\npublisher = pub\nhop\nsubscriber = sub\n";
push @cases,
    [ 'sizes-big', sprintf($sized, '300000000'), [], qr/sizes-big\.cfg:2: sizes '300000000': 300000000 is outside 8\.\.67108864 bytes/ ],
    [ 'sizes-wrap', sprintf($sized, '64,4294967360'), [], qr/sizes-wrap\.cfg:2: sizes '64,4294967360': 4294967360 is outside/ ],
    [ 'sizes-1e9', sprintf($sized, '1e9'), [], qr/sizes-1e9\.cfg:2: sizes '1e9': '1e9' is not a size/ ],
    [ 'sizes-16e3', sprintf($sized, '16e3'), [], qr/sizes-16e3\.cfg:2: sizes '16e3': '16e3' is not a size/ ],
    [ 'hwm-1e3', sprintf($sized, '64') . "    count = 1\n", [ '--set', 'hwm=1e3' ], qr/--set hwm=1e3: hwm must be a whole number, not '1e3'/ ],
    [ 'messages-1e6', "topology = t\n    messages = 1e6\npublisher = pub\nhop\nsubscriber = sub\n", [],
      qr/messages-1e6\.cfg:2: messages must be a whole number, not '1e6'/ ];
# Endpoints: checked when the file is, at the endpoint's own line
my $ep = "topology = t\npublisher = pub\nhop = %s\n    hwm = 10\n    endpoint = %s\nsubscriber = sub\n";
push @cases,
    [ 'ep-port', sprintf($ep, 'tcp', 'tcp://127.0.0.1:99999'), [], qr/ep-port\.cfg:5: hop 1 endpoint 'tcp:\/\/127\.0\.0\.1:99999': port '99999' is not 1\.\.65535/ ],
    [ 'ep-noport', sprintf($ep, 'tcp', 'tcp://192.0.2.1'), [], qr/ep-noport\.cfg:5: hop 1 endpoint 'tcp:\/\/192\.0\.2\.1': no port/ ],
    [ 'ep-scheme', sprintf($ep, 'ipc', 'tcp://127.0.0.1:5555'), [], qr/ep-scheme\.cfg:5: hop 1 endpoint 'tcp:\/\/127\.0\.0\.1:5555' does not fit the hop's transport \(ipc:/ ],
    [ 'ep-long', sprintf($ep, 'ipc', 'ipc:///tmp/' . ('x' x 120)), [], qr/ep-long\.cfg:5: hop 1 endpoint .*: the path has 125 bytes; a unix socket's has at most 107/ ],
    [ 'ep-set', sprintf($ep, 'tcp', 'tcp://127.0.0.1:5555'), [ '--set', 'hop1.endpoint=tcp://*:5555' ], qr/--set hop1\.endpoint=tcp:\/\/\*:5555: hop 1 endpoint .*: host \* binds every interface/ ];
for my $case (@cases) {
    my ($name, $text, $args, $want) = @$case;
    write_file("$dir/$name.cfg", $text);
    my ($rc, $out, $err) = hopbench('check', "$dir/$name.cfg", @$args);
    is($rc, 2, "$name: exit 2");
    like($err, $want, "$name: at the key's line");
}

# A swept value that cannot work is named as the --sweep that gave it
my ($rc, $out, $err) = hopbench('run', 'topologies/proxy.cfg', '--set', 'mode=flood',
    '--sweep', 'engine=zproxy', '--sweep', 'transport=ipc,inproc', '--output',
    "$dir/never");
is($rc, 2, 'sweep: exit 2');
like($err, qr/--sweep transport=inproc: engine zproxy runs in czmq's own context/, 'sweep: names the --sweep');
ok(!-e "$dir/never", 'sweep: nothing ran');

done_testing();
