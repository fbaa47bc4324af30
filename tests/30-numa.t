#!/usr/bin/perl
# NUMA placement: where `hopbench plan` puts every thread on described
# machines, what a one-node machine refuses, and, on two real NUMA nodes
# (the VM of ../shared/tools/numa-vm-run, or this machine when it has
# them), that threads and message memory land where the plan says.
use strict;
use warnings;
use Cwd qw(getcwd);
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use Test::More;

chdir "$FindBin::Bin/..";
my $root = getcwd();
$ENV{PWD} = $root;    # numa-vm-run names the guest's directory after it
my $vm_tool = "$root/../shared/tools/numa-vm-run";
my $two_nodes_here = -e '/sys/devices/system/node/node1';
my $xeon_file = 'numa/xeon-e5-2680v4-2s.cfg';

# ---------------------------------------------------------------- helpers

# "0-13,28-41" -> 0..13, 28..41
sub cpu_list {
    my ($text) = @_;
    return map { /^(\d+)-(\d+)$/ ? ($1 .. $2) : $_ } grep { length } split /,/, $text // '';
}

sub csv_text {
    my ($text) = @_;
    my $path = tmp() . '/table.csv';
    write_file($path, $text);
    return csv($path);
}

# A description in numa/: each node's CPUs and distances, and the cores
sub description {
    my ($path) = @_;
    my (%machine, $node);
    for (split /\n/, Hopbench::slurp($path)) {
        s/\s*#.*//;
        if (/^node = (\d+)$/) { $node = $1 }
        elsif (/^\s+cpus = (\S+)$/ && defined $node) { $machine{cpus}{$node} = [cpu_list($1)] }
        elsif (/^\s+distances = (\S+)$/ && defined $node) { $machine{distances}{$node} = $1 }
        elsif (/^\s+smt_offset = (\d+)$/) { $machine{smt_offset} = $1 }
    }
    # CPU c and c + smt_offset are one core, pairing in ascending order
    my $offset = $machine{smt_offset} // 0;
    for my $cpu (sort { $a <=> $b } map { @$_ } values %{ $machine{cpus} }) {
        next if exists $machine{core}{$cpu};
        $machine{core}{$cpu} = $cpu;
        $machine{core}{ $cpu + $offset } = $cpu if $offset;
    }
    return finish_machine(\%machine);
}

# What `hopbench machine` printed, in the same shape
sub machine_printed {
    my ($text) = @_;
    my %machine;
    for (split /\n/, $text) {
        if (/^node (\d+)\s+cpus (\S+)/) { $machine{cpus}{$1} = [cpu_list($2)] }
        elsif (/^\s*(\d+):\s+([\d ]+?)\s*$/) { $machine{distances}{$1} = join ',', split ' ', $2 }
    }
    return finish_machine(\%machine);
}

sub finish_machine {
    my ($machine) = @_;
    for my $node (keys %{ $machine->{cpus} }) {
        $machine->{node_of}{$_} = $node for @{ $machine->{cpus}{$node} };
    }
    return $machine;
}

# `hopbench plan ... --format csv`: status, rows, text, stderr
sub plan_csv {
    my (@args) = @_;
    my ($rc, $out, $err) = hopbench('plan', @args, '--format', 'csv');
    return ($rc, csv_text($out)->{rows}, $out, $err);
}

sub main_rows { return grep { $_->{thread} eq 'main' } @_ }
sub same_cpus { return join(',', sort { $a <=> $b } cpu_list($_[0])) eq join(',', sort { $a <=> $b } @{ $_[1] }) }

# Text between '--- NAME' marker lines, by NAME
sub sections {
    my ($text) = @_;
    my (%section, $name);
    for (split /\n/, $text =~ s/\r//gr) {
        if (/^--- (\S+)$/) { $name = $1; $section{$name} = ''; next }
        $section{$name} .= "$_\n" if defined $name;
    }
    return \%section;
}

# Run a shell script, its output and status: natively, or in a VM booted
# by numa-vm-run with @vm_options (hopbench, topologies/ and numa/ copied
# in).  $out in the script is a scratch directory.
sub shell {
    my ($script, @vm_options) = @_;
    my $log = tmp();
    my @command = @vm_options
        ? ($vm_tool, @vm_options, qw(./hopbench topologies numa --), "out=/tmp/vmout\n$script")
        : ('sh', '-c', 'out=' . tmp() . "\n$script");
    system(join(' ', map { "'" . s/'/'\\''/gr . "'" } @command) . " >$log/out 2>$log/err");
    return ($? >> 8, Hopbench::slurp("$log/out") . Hopbench::slurp("$log/err"));
}

# On two NUMA nodes: this machine when it has them, else the 2-node VM
sub on_two_nodes {
    my ($script, @vm_options) = @_;
    return $two_nodes_here ? shell($script) : shell($script, @vm_options);
}

# ------------------------------------------- plans for a described machine

my $xeon = description($xeon_file);

# spread: every hop crosses a socket
my ($rc, $rows, $text, $err) = plan_csv('topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement spread));
is($rc, 0, 'plan chain3 --placement spread on the Xeon: exit 0') or diag $err;
is((split /\n/, $text)[0], 'stage,role,thread,node,cpus', 'plan --format csv: the contract header');
my @main = main_rows(@$rows);
is(join(' ', map { $_->{stage} } @main), 'pub p1 p2 p3 sub',
   'spread: one main thread per stage, in pipeline order');
for my $i (1 .. $#main) {
    isnt($main[$i]{node}, $main[$i - 1]{node},
         "spread: $main[$i - 1]{stage} and $main[$i]{stage} are on different nodes");
}
for my $r (@main) {
    my @cpus = cpu_list($r->{cpus});
    ok(@cpus == 1 && $xeon->{node_of}{ $cpus[0] } eq $r->{node},
       "spread: $r->{stage} runs on one CPU of node $r->{node} (CPU $r->{cpus})");
}
my %cores = map { $xeon->{core}{ $_->{cpus} } => 1 } @main;
is(scalar keys %cores, 5, 'spread: no two stage threads share a physical core (CPU c and c+28)');
my @io = grep { $_->{thread} ne 'main' } @$rows;
is(join(' ', map { $_->{stage} } grep { $_->{thread} eq 'io0' } @io), 'pub p1 p2',
   'spread: I/O threads for pub, p1 and p2 (p3 and sub share p2\'s context over inproc)');
for my $r (@io) {
    my ($stage) = grep { $_->{stage} eq $r->{stage} } @main;
    ok($r->{node} eq $stage->{node} && same_cpus($r->{cpus}, $xeon->{cpus}{ $r->{node} }),
       "spread: $r->{stage} $r->{thread} may use all of node $stage->{node}'s CPUs ($r->{cpus})");
}

# The table shows the same plan, one thread per line
my ($table_rc, $table) = hopbench('plan', 'topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement spread));
my @lines = split /\n/, $table;
is($lines[0], "# chain3 on xeon-e5-2680v4-2s ($xeon_file), placement spread",
   'plan table: says which topology, machine and policy');
like($lines[1], qr/^stage\s+role\s+thread\s+node\s+cpus$/, 'plan table: column names');
is_deeply([ map { [ split ' ' ] } @lines[ 2 .. $#lines ] ],
          [ map { [ @$_{qw(stage role thread node cpus)} ] } @$rows ],
          'plan table: the same rows as --format csv');

# compact: all on node 0, a core each, no SMT sibling while cores are free
($rc, $rows, undef, $err) = plan_csv('topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement compact));
is($rc, 0, 'plan chain3 --placement compact: exit 0') or diag $err;
@main = main_rows(@$rows);
is(join(' ', map { $_->{node} } @main), '0 0 0 0 0', 'compact: every stage on node 0');
%cores = map { $xeon->{core}{ $_->{cpus} } => 1 } @main;
is(scalar keys %cores, 5, 'compact: five stages on five physical cores');
ok(!(grep { $xeon->{core}{ $_->{cpus} } != $_->{cpus} } @main),
   'compact: only first threads of cores (no SMT sibling while cores are free)');

# compact with 16 stage threads on node 0's 14 cores: two cores are shared
($rc, $rows, undef, $err) = plan_csv('topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement compact --set sub.count=12));
is($rc, 0, 'compact with 16 stage threads: exit 0 (siblings = true)') or diag $err;
@main = main_rows(@$rows);
my %users;
$users{ $xeon->{core}{ $_->{cpus} } }++ for @main;
is(scalar keys %users, 14, 'compact with 16 stage threads: all 14 cores of node 0 used');
is(scalar(grep { $_ == 2 } values %users), 2, 'compact with 16 stage threads: 2 cores carry two');
my @shared = sort map { $_->{stage} } grep { $users{ $xeon->{core}{ $_->{cpus} } } > 1 } @main;
(undef, $table) = hopbench('plan', 'topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement compact --set sub.count=12));
my @marked = sort map { (split ' ')[0] } grep { /shares a core: SMT sibling/ } split /\n/, $table;
is_deeply(\@marked, \@shared, "plan table: marks the threads that share a core (@shared)");
($rc, undef, $err) = hopbench('plan', 'topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement compact --set sub.count=12 --set siblings=false));
is($rc, 2, 'compact with 16 stage threads and siblings = false: exit 2');
like($err, qr/compact: 16 stage threads need 16 cores on node 0, it has 14/,
     'compact with siblings = false: says how many cores are missing');

# split: the publisher side on node 0, the subscriber side on node 1
($rc, $rows, undef, $err) = plan_csv('topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement split));
is($rc, 0, 'plan chain3 --placement split: exit 0') or diag $err;
@main = main_rows(@$rows);
is(join(' ', map { "$_->{stage}:$_->{node}" } @main), 'pub:0 p1:0 p2:0 p3:1 sub:1',
   'split: the first three stages on node 0, the last two on node 1');
is(scalar(grep { $main[$_]{node} ne $main[ $_ - 1 ]{node} } 1 .. $#main), 1,
   'split: exactly one hop crosses nodes');

# Every description: `hopbench machine --machine` shows what the file says
for my $file (sort glob 'numa/*.cfg') {
    my ($machine_rc, $printed) = hopbench('machine', '--machine', $file);
    is($machine_rc, 0, "hopbench machine --machine $file: exit 0");
    my ($got, $want) = (machine_printed($printed), description($file));
    is_deeply([ @$got{qw(cpus distances)} ], [ @$want{qw(cpus distances)} ],
              "hopbench machine --machine $file: its nodes, CPUs and distances");
}

# ------------------------------------------------- a one-node machine says no

SKIP: {
    skip 'this machine has more than one NUMA node', 11 if $two_nodes_here;
    my ($machine_rc, $printed) = hopbench('machine');
    is($machine_rc, 0, 'hopbench machine: exit 0');
    like($printed, qr/, 1 NUMA node\n/, 'hopbench machine: this machine has one node');
    my $out = tmp();
    my @run = qw(run topologies/proxy.cfg --sizes 64 --messages 1000 --quiet --output);
    ($rc, undef, $err) = hopbench(@run, "$out/spread", qw(--placement spread));
    is($rc, 2, 'run --placement spread on one node: exit 2');
    like($err, qr/spread needs 2 NUMA nodes; this machine has 1 \(node 0\)/,
         'run --placement spread: says it needs 2 nodes');
    ok(!-e "$out/spread", 'run --placement spread: nothing ran, no results directory');
    ($rc, undef, $err) = hopbench(@run, "$out/node", qw(--set sub.node=1));
    is($rc, 2, 'run --set sub.node=1 on one node: exit 2');
    like($err, qr/sub: node 1 does not exist \(this machine has node 0\)/,
         'run --set sub.node=1: names the stage and the node');
    ok(!-e "$out/node", 'run --set sub.node=1: nothing ran');
    ($rc, undef, $err) = hopbench(@run, "$out/cpus", qw(--set sub.cpus=999));
    is($rc, 2, 'run --set sub.cpus=999: exit 2');
    like($err, qr/sub: cpus '999': CPU 999 does not exist on this machine/,
         'run --set sub.cpus=999: names the stage and the CPU');
    ok(!-e "$out/cpus", 'run --set sub.cpus=999: nothing ran');
}

# ------------------------------------------------------------- two real nodes

my $no_two_nodes = $two_nodes_here || -x $vm_tool ? undef
    : "this machine has one NUMA node and there is no $vm_tool";
my $where = $two_nodes_here ? 'this machine' : 'the 2-node VM';

# proxy.cfg split: pub and broker on node 0, sub on node 1, for real
subtest "proxy --placement split in $where: threads and memory where the plan says" => sub {
    plan skip_all => $no_two_nodes if $no_two_nodes;
    my ($vm_rc, $output) = on_two_nodes(<<'EOF', qw(-t 180));
echo '--- machine'; ./hopbench machine; echo "exit $?"
echo '--- plan'; ./hopbench plan topologies/proxy.cfg --placement split --format csv
echo '--- run'
./hopbench run topologies/proxy.cfg --placement split --sizes 64 --messages 50000 \
    --format csv --quiet --set timeout=60 --output $out/split 2>&1
echo "exit $?"
echo '--- results.csv'; cat $out/split/results.csv
echo '--- threads.csv'; cat $out/split/threads.csv
echo '--- metadata.json'; cat $out/split/metadata.json
echo '--- end'
EOF
    is($vm_rc, 0, "the commands ran in $where") or diag $output;
    my $s = sections($output);
    like($s->{machine}, qr/, 2 NUMA nodes\n/, 'hopbench machine: 2 NUMA nodes');
    like($s->{machine}, qr/^exit 0$/m, 'hopbench machine: exit 0');
    my $machine = machine_printed($s->{machine});
    if (!$two_nodes_here) {
        my $described = description('numa/vm-2x2.cfg');
        is_deeply([ @$machine{qw(cpus distances)} ], [ @$described{qw(cpus distances)} ],
                  'the VM is the machine numa/vm-2x2.cfg describes');
        my (undef, $host_plan) = plan_csv(qw(topologies/proxy.cfg --machine numa/vm-2x2.cfg --placement split));
        is_deeply(csv_text($s->{plan})->{rows}, $host_plan,
                  'the plan in the VM is the plan for numa/vm-2x2.cfg');
    }
    my %planned = map { $_->{stage} => $_ } main_rows(@{ csv_text($s->{plan})->{rows} });
    is(join(' ', map { "$_:$planned{$_}{node}" } qw(pub broker sub)), 'pub:0 broker:0 sub:1',
       'plan: pub and broker on node 0, sub on node 1');
    like($s->{run}, qr/^exit 0$/m, 'hopbench run --placement split: exit 0') or diag $s->{run};

    # results.csv: the CPUs and nodes read back, hop by hop
    my @hops = @{ csv_text($s->{'results.csv'})->{rows} };
    is(join(' ', map { $_->{hop} } @hops), '1 2', 'results.csv: hops 1 and 2');
    is(scalar(grep { $_->{from_node} != $_->{to_node} } @hops), 1,
       'results.csv: exactly one hop crosses nodes');
    for my $r (@hops) {
        ok($r->{received} > 0, "hop $r->{hop}: $r->{received} messages arrived");
        for my $end (qw(from to)) {
            my ($stage, $cpu, $node) = ($r->{$end}, $r->{"${end}_cpu"}, $r->{"${end}_node"});
            is("$cpu/$node", "$planned{$stage}{cpus}/$planned{$stage}{node}",
               "hop $r->{hop}: $stage ran on CPU $planned{$stage}{cpus} of node $planned{$stage}{node}");
            is($machine->{node_of}{$cpu}, $node, "hop $r->{hop}: CPU $cpu is on node $node");
        }
    }

    # threads.csv: each stage's thread, its libzmq threads, its memory
    my @threads = @{ csv_text($s->{'threads.csv'})->{rows} };
    for my $stage (qw(pub broker sub)) {
        my ($node, $cpus) = @{ $planned{$stage} }{qw(node cpus)};
        my ($main) = grep { $_->{stage} eq $stage && $_->{thread} eq 'main' } @threads;
        ok($main, "threads.csv: $stage main thread") or next;
        is($main->{allowed_cpus}, $cpus, "threads.csv: $stage main may run on CPU $cpus only");
        is($machine->{node_of}{ $main->{last_cpu} }, $node, "threads.csv: $stage main ran on node $node");
        is($main->{mem_node}, $node, "threads.csv: $stage message memory on node $node");
        my @zmq = grep { $_->{stage} eq $stage && $_->{thread} =~ m{^ZMQbg/} } @threads;
        ok((grep { $_->{thread} =~ m{^ZMQbg/IO/} } @zmq), "threads.csv: $stage has a libzmq I/O thread");
        for my $t (@zmq) {
            ok(same_cpus($t->{allowed_cpus}, $machine->{cpus}{$node}),
               "threads.csv: $stage $t->{thread} may use node ${node}'s CPUs only ($t->{allowed_cpus})");
        }
    }
    my $meta = eval { decode_json($s->{'metadata.json'}) } // {};
    is_deeply($meta->{warnings}, [], 'metadata.json: no placement warnings');
};

# Every trial, every stage: message memory on the stage's node, also for
# a stage that joins another's context and from the second trial on (the
# stage threads pin themselves before they allocate and live for the run);
# and were it not so, hopbench would say so.
subtest "mixed --placement split --repeat 2 in $where: memory in every trial" => sub {
    plan skip_all => $no_two_nodes if $no_two_nodes;
    my ($vm_rc, $output) = on_two_nodes(<<'EOF', qw(-t 180));
echo '--- plan'; ./hopbench plan topologies/mixed.cfg --placement split --format csv
echo '--- run'
./hopbench run topologies/mixed.cfg --placement split --sizes 64 --repeat 2 --messages 5000 \
    --quiet --set timeout=60 --output $out/repeat >/dev/null 2>&1
echo "exit $?"
echo '--- threads.csv'; cat $out/repeat/threads.csv
echo '--- metadata.json'; cat $out/repeat/metadata.json
echo '--- end'
EOF
    is($vm_rc, 0, "the commands ran in $where") or diag $output;
    my $s = sections($output);
    like($s->{run}, qr/^exit 0$/m, 'hopbench run mixed --repeat 2: exit 0');
    my %node = map { $_->{stage} => $_->{node} } main_rows(@{ csv_text($s->{plan})->{rows} });
    my @main = main_rows(@{ csv_text($s->{'threads.csv'})->{rows} });
    is(scalar @main, 8, 'threads.csv: 4 stage threads in each of 2 trials');
    my %off = map { ("stage $_->{stage}: a message buffer it allocated is on node "
                     . "$_->{mem_node}; the plan says node $node{ $_->{stage} }" => 1) }
              grep { $_->{mem_node} != $node{ $_->{stage} } } @main;
    my $meta = eval { decode_json($s->{'metadata.json'}) } // {};
    my @said = grep { /message buffer/ } @{ $meta->{warnings} // [] };
    is_deeply([ sort @said ], [ sort keys %off ],
              'metadata.json warns about exactly the memory off its node');
    for my $t (@main) {
        is($t->{mem_node}, $node{ $t->{stage} },
           "trial $t->{repeat}: $t->{stage} message memory on node $node{ $t->{stage} }");
    }
};

# SMT: two cores x two threads per node; stage threads take a core each
# while there are free cores
subtest 'proxy --placement compact in a VM with SMT: a core each while cores are free' => sub {
    plan skip_all => 'needs the VM of numa-vm-run (-c 4 -s 2)' if !-x $vm_tool;
    my ($vm_rc, $output) = shell(<<'EOF', qw(-t 150 -c 4 -s 2));
echo '--- machine'; ./hopbench machine
echo '--- siblings'
for cpu in 0 1 2 3 4 5 6 7; do
    echo "$cpu $(cat /sys/devices/system/cpu/cpu$cpu/topology/thread_siblings_list)"
done
echo '--- plan'; ./hopbench plan topologies/proxy.cfg --placement compact --format csv
echo '--- run'
./hopbench run topologies/proxy.cfg --placement compact --sizes 64 --messages 5000 \
    --quiet --set timeout=60 --output $out/smt >/dev/null 2>&1
echo "exit $?"
echo '--- threads.csv'; cat $out/smt/threads.csv
echo '--- strict'
./hopbench run topologies/proxy.cfg --placement compact --set siblings=false \
    --sizes 64 --messages 5000 --quiet --output $out/strict 2>&1
echo "exit $?"
echo '--- end'
EOF
    is($vm_rc, 0, 'the commands ran in the VM') or diag $output;
    my $s = sections($output);
    my $described = description('numa/vm-2x4-smt.cfg');
    is_deeply([ @{ machine_printed($s->{machine}) }{qw(cpus distances)} ],
              [ @$described{qw(cpus distances)} ], 'the VM is the machine numa/vm-2x4-smt.cfg describes');
    my %core = map { /^(\d+) (\d+)/ ? ($1 => $2) : () } split /\n/, $s->{siblings};
    is_deeply(\%core, $described->{core}, 'its SMT siblings are the ones smt_offset = 1 gives');
    my (undef, $host_plan) = plan_csv(qw(topologies/proxy.cfg --machine numa/vm-2x4-smt.cfg --placement compact));
    is_deeply(csv_text($s->{plan})->{rows}, $host_plan, 'the plan in the VM is the plan for numa/vm-2x4-smt.cfg');
    like($s->{run}, qr/^exit 0$/m, 'hopbench run --placement compact: exit 0');

    my @main = main_rows(@{ csv_text($s->{'threads.csv'})->{rows} });
    is(join(' ', map { $_->{stage} } @main), 'pub broker sub', 'threads.csv: the three stage threads');
    my %used;
    for my $t (@main) {
        my $cpu = $t->{allowed_cpus};
        is($t->{last_cpu}, $cpu, "$t->{stage} ran on the one CPU it may use ($cpu)");
        is($described->{node_of}{$cpu}, 0, "$t->{stage} is on node 0");
        my $cores_free = 2 - keys %used;
        ok(!$used{ $core{$cpu} } || !$cores_free,
           "$t->{stage} on CPU $cpu: a core of its own while $cores_free are free");
        $used{ $core{$cpu} }++;
    }
    is(scalar keys %used, 2, 'the three stage threads use both cores of node 0');
    like($s->{strict}, qr/^exit 2$/m, 'siblings = false with 3 stages on 2 cores: exit 2');
    like($s->{strict}, qr/compact: 3 stage threads need 3 cores on node 0, it has 2/,
         'siblings = false: says how many cores are missing');
};

done_testing();
