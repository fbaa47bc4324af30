#!/usr/bin/perl
# NUMA placement: where `hopbench plan` puts every thread on described
# machines (the controller's too), the study of every assignment
# (placement all), the process's CPU set, what a one-node machine refuses
# or runs, and, on real NUMA nodes (the VMs of ../shared/tools/numa-vm-run:
# 2 x 2 CPUs, 3 x 2 CPUs, 2 x 4 CPUs with SMT; or this machine when it has
# two nodes), that every thread and the memory each stage writes land
# where the plan says, that the plan lists exactly the threads the run
# starts, and that placement all measures each distinct assignment once.
# Few VM boots (each costs seconds): several runs in each, the VMs side
# by side.
use strict;
use warnings;
use Cwd qw(getcwd);
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use JSON::PP;
use POSIX ();
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

sub main_rows { return grep { $_->{thread} eq 'main' && $_->{stage} ne 'controller' } @_ }
sub controller_rows { return grep { $_->{stage} eq 'controller' } @_ }

# A thread read back (threads.csv) by the name the plan gives it
sub roster_name {
    my ($thread) = @_;
    my $process = $thread =~ s{^process/}{} ? 'process/' : '';
    return "${process}io$1" if $thread =~ m{^ZMQbg/IO/(\d+)$};
    return "${process}reaper" if $thread eq 'ZMQbg/Reaper';
    return $process . $thread;
}

# The nodes a CPU list touches
sub nodes_of {
    my ($machine, $cpus) = @_;
    my %nodes = map { ($machine->{node_of}{$_} // 'none') => 1 } cpu_list($cpus);
    my @nodes = sort keys %nodes;
    return wantarray ? @nodes : scalar @nodes;
}
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

# Start a shell script in the background: natively, or in a VM booted by
# numa-vm-run with @vm_options (hopbench, topologies/ and numa/ copied
# in).  $out in the script is a scratch directory.  shell_finish waits
# for it: its status and output
sub shell_start {
    my ($script, @vm_options) = @_;
    my $log = tmp();
    my $again = [ $script, @vm_options ];
    my @command = @vm_options
        ? ($vm_tool, @vm_options, qw(./hopbench topologies numa --), "out=/tmp/vmout\n$script")
        : ('sh', '-c', 'out=' . tmp() . "\n$script");
    my $line = join(' ', map { "'" . s/'/'\\''/gr . "'" } @command) . " >$log/out 2>$log/err";
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        { exec('sh', '-c', $line) }
        POSIX::_exit(127);
    }
    return { pid => $pid, log => $log, again => $again, vm => scalar @vm_options };
}

sub shell_wait {
    my ($job) = @_;
    $job->{status} //= waitpid($job->{pid}, 0) == $job->{pid} ? $? >> 8 : 255;
    return $job->{status};
}

# A VM run the busy host spoiled is made again, up to twice: one that did
# not boot (numa-vm-run's exit 125: under TCG the guest kernel's timer
# check can fail, a panic), or one where a run failed (exit 1, which no
# run in these scripts should: a stage process that the starved guest
# did not start within hopbench's 10 s)
sub shell_finish {
    my ($job) = @_;
    return (255, 'not started') unless $job;
    my $output = sub { Hopbench::slurp("$job->{log}/out") . Hopbench::slurp("$job->{log}/err") };
    for (my $runs = 1; $job->{vm} && $runs < 3; $runs++) {
        my ($why) = shell_wait($job) == 125
            ? ($output->() =~ /^(?:\[[\d. ]+\] )?(.*panic.*)$/m, 'it did not boot')
            : $output->() =~ /^exit 1$/m
            ? ($output->() =~ /^(hopbench: .*)\n(?:.*\n)?exit 1$/m, 'a run ended with exit 1')
            : ();
        last unless defined $why;
        note("the VM again: $why");
        $job = shell_start(@{ $job->{again} });
    }
    return (shell_wait($job), $output->());
}

# On two NUMA nodes: this machine when it has them, else the 2-node VM
sub on_two_nodes_start {
    my ($script, @vm_options) = @_;
    return $two_nodes_here ? shell_start($script) : shell_start($script, @vm_options);
}

# ------------------------------------------------------ the VMs, started

# The runs on real nodes (the subtests at the end read them) start now
# and run side by side, beside the plans below: a VM mostly waits (its
# boot takes seconds of wall time and little CPU).  The first fetches
# numa-vm-run's kernel when it has none yet: the others then wait for it.
# Their runs take no stall check (stall_ratio = 0): a guest CPU that the
# busy host did not run for a second stalls a window, and the retry's
# warning is the host's, not one of the placement or memory warnings
# the subtests look for
my $no_two_nodes = $two_nodes_here || -x $vm_tool ? undef
    : "this machine has one NUMA node and there is no $vm_tool";
my $no_vm = -x $vm_tool ? undef : "no $vm_tool";
my $where = $two_nodes_here ? 'this machine' : 'the 2-node VM';
my $vm_kernel = ($ENV{NUMAVM_DIR} // '/tmp/numavm') . '/cache/vmlinuz';
my %vm_job;
$vm_job{two} = on_two_nodes_start(<<'SCRIPT', qw(-t 300)) unless $no_two_nodes;
echo '--- machine'; ./hopbench machine; echo "exit $?"
for t in proxy proxy-procs; do
    echo "--- plan-$t"; ./hopbench plan topologies/$t.cfg --placement split --format csv
    echo "--- run-$t"
    ./hopbench run topologies/$t.cfg --placement split --sizes 64 --messages 20000 \
        --format csv --quiet --set timeout=60 --set stall_ratio=0 --output $out/$t 2>&1
    echo "exit $?"
    for f in results.csv threads.csv memory.csv metadata.json; do
        echo "--- $t-$f"; cat $out/$t/$f
    done
done
echo '--- plan-mixed'; ./hopbench plan topologies/mixed.cfg --placement split --format csv
echo '--- run-mixed'
./hopbench run topologies/mixed.cfg --placement split --sizes 64 --repeat 2 --messages 5000 \
    --quiet --set timeout=60 --set stall_ratio=0 --output $out/mixed >/dev/null 2>&1
echo "exit $?"
echo '--- mixed-threads.csv'; cat $out/mixed/threads.csv
echo '--- mixed-memory.csv'; cat $out/mixed/memory.csv
echo '--- mixed-metadata.json'; cat $out/mixed/metadata.json
echo '--- end'
SCRIPT
unless ($no_vm) {
    shell_wait($vm_job{two}) if $vm_job{two} && !-s $vm_kernel;
    $vm_job{three} = shell_start(<<'SCRIPT', qw(-t 300 -n 3 -c 2));
echo '--- machine'; ./hopbench machine
run() {
    name=$1; shift
    echo "--- plan-$name"; ./hopbench plan "$@" --placement spread --format csv
    echo "--- run-$name"
    ./hopbench run "$@" --placement spread --sizes 64 --messages 5000 --quiet \
        --set timeout=60 --set stall_ratio=0 --output $out/$name >/dev/null 2>&1
    echo "exit $?"
    for f in threads.csv memory.csv metadata.json; do echo "--- $name-$f"; cat $out/$name/$f; done
}
run threads topologies/proxy.cfg
run processes topologies/proxy-procs.cfg
run zproxy topologies/proxy.cfg --set mode=flood --set broker.engine=zproxy --set broker.process=own
echo '--- end'
SCRIPT
    $vm_job{smt} = shell_start(<<'SCRIPT', qw(-t 400 -c 4 -s 2));
echo '--- machine'; ./hopbench machine
echo '--- siblings'
for cpu in 0 1 2 3 4 5 6 7; do
    echo "$cpu $(cat /sys/devices/system/cpu/cpu$cpu/topology/thread_siblings_list)"
done
echo '--- plan'; ./hopbench plan topologies/proxy.cfg --placement compact --format csv
echo '--- run'
./hopbench run topologies/proxy.cfg --placement compact --sizes 64 --messages 5000 \
    --quiet --set timeout=60 --set stall_ratio=0 --output $out/smt >/dev/null 2>&1
echo "exit $?"
echo '--- threads.csv'; cat $out/smt/threads.csv
echo '--- strict'
./hopbench run topologies/proxy.cfg --placement compact --set siblings=false \
    --sizes 64 --messages 5000 --quiet --output $out/strict 2>&1
echo "exit $?"
echo '--- plan-all'; ./hopbench plan topologies/proxy.cfg --placement all --format csv
echo '--- all'
./hopbench run topologies/proxy.cfg --placement all --sizes 64 --messages 5000 \
    --set timeout=60 --set stall_ratio=0 --output $out/all 2>/dev/null
echo "exit $?"
for f in placements.csv results.csv threads.csv memory.csv metadata.json; do
    echo "--- all-$f"; cat $out/all/$f
done
for a in 0+0+0 0+0+1 0+1+0 0+1+1; do
    echo "--- plan-$a"; ./hopbench plan topologies/proxy.cfg --set nodes=$a --format csv
done
echo '--- end'
SCRIPT
}

# ------------------------------------------- plans for a described machine

my $xeon = description($xeon_file);

# spread: every hop crosses a socket
my ($rc, $rows, $text, $err) = plan_csv('topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement spread));
is($rc, 0, 'plan chain3 --placement spread on the Xeon: exit 0') or diag $err;
like((split /\n/, $text)[0], qr/^stage,role,thread,node,cpus,/,
     'plan --format csv: the contract columns first');
is((split /\n/, $text)[0], 'stage,role,thread,node,cpus,engine,runs_in',
   'plan --format csv: then engine and runs_in');
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
my @io = grep { $_->{thread} =~ /^(io\d+|reaper)$/ && $_->{stage} ne 'controller' } @$rows;
is(join(' ', map { $_->{stage} } grep { $_->{thread} eq 'io0' } @io), 'pub p1 p2',
   'spread: I/O threads for pub, p1 and p2 (p3 and sub share p2\'s context over inproc)');
is(join(' ', map { $_->{stage} } grep { $_->{thread} eq 'reaper' } @io), 'pub p1 p2',
   'spread: a reaper for each context, as libzmq starts one');
for my $r (@io) {
    my ($stage) = grep { $_->{stage} eq $r->{stage} } @main;
    ok($r->{node} eq $stage->{node} && same_cpus($r->{cpus}, $xeon->{cpus}{ $r->{node} }),
       "spread: $r->{stage} $r->{thread} may use all of node $stage->{node}'s CPUs ($r->{cpus})");
}
is(join(' ', map { "$_->{stage}:$_->{engine}:$_->{runs_in}" } @main),
   'pub::thread p1:steerable:thread p2:steerable:thread p3:steerable:thread sub::thread',
   'spread: each proxy\'s engine, and where each stage runs');

# The controller: last, on one CPU no stage uses, a free core on node 0
my @home = controller_rows(@$rows);
is(join(' ', map { $_->{thread} } @home), 'main io0 reaper',
   'controller: its main thread and czmq\'s I/O thread and reaper, last');
is($rows->[-1]{stage}, 'controller', 'controller: the last rows of the plan');
my %home_cpus = map { $_->{cpus} => 1 } @home;
my ($home_cpu) = keys %home_cpus;
is(scalar keys %home_cpus, 1, "controller: all on one CPU ($home_cpu)");
ok(!(grep { $_->{stage} ne 'controller' && grep { $_ == $home_cpu } cpu_list($_->{cpus}) } @main),
   "controller: CPU $home_cpu is no stage thread's");
ok(!(grep { $xeon->{core}{ $_->{cpus} } == $xeon->{core}{$home_cpu} } @main),
   "controller: nor is its core (CPU $home_cpu and " . ($home_cpu + 28) . ')');
is($home[0]{node}, 0, 'controller: on node 0');

# The table shows the same plan, one thread per line
my ($table_rc, $table) = hopbench('plan', 'topologies/chain3.cfg', '--machine', $xeon_file,
    qw(--placement spread));
my @lines = split /\n/, $table;
is($lines[0], "# chain3 on xeon-e5-2680v4-2s ($xeon_file), placement spread",
   'plan table: says which topology, machine and policy');
like($lines[1], qr/^stage\s+role\s+thread\s+node\s+cpus\s+engine\s+runs_in$/, 'plan table: column names');
is_deeply([ map { [ split ' ' ] } @lines[ 2 .. $#lines ] ],
          [ map { my $r = $_; [ map { length $r->{$_} ? $r->{$_} : '-' }
                                qw(stage role thread node cpus engine runs_in) ] } @$rows ],
          'plan table: the same rows as --format csv');
my ($check_rc, $checked) = hopbench(qw(check topologies/chain3.cfg --placement spread --machine), $xeon_file);
like($checked, qr/, ${\ scalar @$rows} threads\)$/m, 'check counts the threads the plan lists');

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
is((controller_rows(@$rows))[0]{cpus}, 5, 'compact: the controller on the next free core, CPU 5');

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
is(join(' ', map { "$_->{node}:$_->{cpus}" } grep { $_->{thread} eq 'main' } controller_rows(@$rows)),
   '1:14', 'no free core on node 0: the controller takes node 1\'s first one, not a sibling');
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

# Where the controller goes when asked, or when nothing is free
($rc, $rows) = plan_csv(qw(topologies/chain3.cfg --placement spread --set controller.node=1
    --machine), $xeon_file);
is(join(' ', map { "$_->{node}:$_->{cpus}" } controller_rows(@$rows)), '1:16 1:16 1:16',
   'controller.node=1: node 1\'s first free core (p1 and p3 have 14 and 15)');
my $cfg = tmp() . '/controlled.cfg';
write_file($cfg, Hopbench::slurp('topologies/proxy.cfg') . "controller\n    cpus = 27\n");
($rc, $rows, undef, $err) = plan_csv($cfg, '--machine', $xeon_file, qw(--placement split));
is($rc, 0, 'a controller line in the file: exit 0') or diag $err;
is(join(' ', map { "$_->{node}:$_->{cpus}" } controller_rows(@$rows)), '1:27 1:27 1:27',
   'controller: cpus = 27 from the file');
($rc, undef, $err) = hopbench('plan', $cfg, '--machine', $xeon_file, '--set', 'controller.cpus=13-14');
is($rc, 2, 'controller.cpus across nodes: exit 2');
like($err, qr/^hopbench: --set controller\.cpus=13-14: controller: cpus '13-14' span nodes 0 and 1/,
     'controller.cpus across nodes: says where and why');
($rc, $rows) = plan_csv(qw(topologies/proxy.cfg --placement split --set sub.count=2
    --machine numa/vm-2x2.cfg));
is(join(' ', map { $_->{cpus} } controller_rows(@$rows)), '0 0 0',
   'no CPU free (vm-2x2, 4 stage threads): the controller shares the publisher\'s');
(undef, $table) = hopbench(qw(plan topologies/proxy.cfg --placement split --set sub.count=2
    --machine numa/vm-2x2.cfg));
like($table, qr/^controller\s+controller\s+main\s+0\s+0 .*\(no CPU is free: shares pub's\)$/m,
     'no CPU free: the plan says so');
($rc, $rows) = plan_csv(qw(topologies/proxy.cfg --machine), $xeon_file);
is(join(' ', map { "$_->{node}:$_->{cpus}" } controller_rows(@$rows)),
   '-1:0-55 -1:0-55 -1:0-55', 'placement none: the controller is not pinned either');

# Where each stage lives and every thread it brings: processes, zproxy
($rc, $rows) = plan_csv(qw(topologies/proxy-procs.cfg --placement split --machine), $xeon_file);
my @pub = map { $_->{thread} } grep { $_->{stage} eq 'pub' } @$rows;
is("@pub", 'main io0 reaper relay process process/io0 process/reaper',
   'process = own: its thread and context, the relay to it, its process\'s main and czmq threads');
my ($home_row) = controller_rows(@$rows);
ok(!(grep { $_->{thread} =~ /^(relay|process)/ && $_->{cpus} ne $home_row->{cpus} } @$rows),
   "process = own: relays and stage processes on the controller's CPU $home_row->{cpus}");
is(join(' ', map { $_->{runs_in} } main_rows(@$rows)), 'process process process',
   'process = own: runs_in process');
(undef, $checked) = hopbench(qw(check topologies/proxy-procs.cfg --placement split --machine), $xeon_file);
like($checked, qr/, ${\ scalar @$rows} threads\)$/m, 'check counts them as the plan lists them');
($rc, $rows) = plan_csv(qw(topologies/proxy.cfg --set engine=zproxy --set mode=flood
    --placement split --machine), $xeon_file);
is(join(' ', map { $_->{thread} } grep { $_->{stage} eq 'broker' } @$rows), 'main zproxy io0 reaper',
   'zproxy: its actor, and czmq\'s context (its sockets\' I/O) under it');
is(join(' ', map { $_->{thread} } controller_rows(@$rows)), 'main',
   'zproxy: the controller keeps only its main thread');

# io_cpus: a stage's I/O threads with the stage thread, on a list, or on
# its node (the default)
($rc, $rows, undef, $err) = plan_csv(qw(topologies/chain3.cfg --placement spread
    --set pub.io_cpus=stage --set p2.io_cpus=28-29 --machine), $xeon_file);
is($rc, 0, 'plan io_cpus: exit 0') or diag $err;
my %by = map { ("$_->{stage}/$_->{thread}" => $_) } @$rows;
is(join(' ', map { $by{"pub/$_"}{cpus} // 'none' } qw(main io0 reaper)),
   join(' ', ($by{'pub/main'}{cpus} // 'none') x 3), 'io_cpus = stage: io0 and reaper on the stage thread\'s CPU');
is($by{'p2/io0'}{cpus} // 'none', '28-29', 'io_cpus = 28-29: io0 on exactly those');
ok(same_cpus($by{'p1/io0'}{cpus} // '', description($xeon_file)->{cpus}{ $by{'p1/main'}{node} // 0 }),
   'io_cpus unset: io0 on every CPU of the stage\'s node');
($rc, undef, $err) = hopbench(qw(plan topologies/chain3.cfg --set pub.io_cpus=stage --machine), $xeon_file);
is($rc, 2, 'io_cpus = stage on a stage not pinned: exit 2');
like($err, qr/pub: io_cpus = stage, but the stage thread is not pinned/, 'io_cpus = stage not pinned: says so');
($rc, undef, $err) = hopbench(qw(plan topologies/chain3.cfg --set p1.io_cpus=999 --machine), $xeon_file);
is($rc, 2, 'io_cpus = 999: exit 2');
like($err, qr/--set p1\.io_cpus=999: p1: io_cpus: cpus '999': CPU 999 does not exist/,
     'io_cpus = 999: where it was given, the stage and the CPU');
($rc, undef, $err) = hopbench(qw(plan topologies/chain3.cfg --set sub.io_cpus=0 --machine), $xeon_file);
is($rc, 2, 'io_cpus on a stage that shares its context (inproc): exit 2');
like($err, qr/sub: io_cpus: its libzmq context is p2's \(an inproc hop joins them\): give io_cpus to p2/,
     'io_cpus on a stage that shares its context: names the owner');
($rc, undef, $err) = hopbench(qw(plan topologies/chain3.cfg --set p2.io_cpus=0 --set sub.io_cpus=0 --machine), $xeon_file);
is($rc, 0, 'io_cpus on a stage that shares its context, the same as its owner\'s (as config.cfg saves it): accepted') or diag $err;

# placement all: every distinct assignment, as a plan
($rc, $rows, $text, $err) = plan_csv(qw(topologies/proxy.cfg --placement all --machine), $xeon_file);
is($rc, 0, 'plan --placement all: exit 0') or diag $err;
# 3 stages on 2 nodes the Xeon cannot tell apart: 2^3 = 8, and renaming
# the nodes pairs them up (0+0+1 is 1+1+0): 4, the first stage on node 0
is(join(' ', map { "$_->{nodes}:$_->{crossings}" } @$rows), '0+0+0:0 0+0+1:1 0+1+0:2 0+1+1:1',
   'plan --placement all: 4 distinct assignments of proxy, with their crossings');
is(join(' ', map { $_->{crossing_hops} } @$rows), '- 2 1+2 1', 'plan --placement all: which hops cross');
($rc, $rows) = plan_csv(qw(topologies/chain3.cfg --placement all --machine), $xeon_file);
is(scalar @$rows, 16, 'plan --placement all: chain3 has 2^5 / 2 = 16');
($rc, $rows) = plan_csv(qw(topologies/proxy.cfg --placement all --set sub.node=1 --machine), $xeon_file);
is(join(' ', map { $_->{nodes} } @$rows), '0+0+1 0+1+1 1+0+1 1+1+1',
   'plan --placement all: sub fixed on node 1, the others anywhere, no renaming');
($rc, undef, $err) = hopbench(qw(plan topologies/chain3.cfg --placement all --set max_placements=8
    --machine), $xeon_file);
is($rc, 2, 'placement all past max_placements: exit 2');
like($err, qr/placement = all: 16 distinct assignments of 5 stages to nodes \(32 before renaming/,
     'placement all past max_placements: the count');
(undef, $checked) = hopbench(qw(check topologies/proxy.cfg --placement all --machine), $xeon_file);
like($checked, qr/ok \(pubsub, 3 stages, 2 hops, 12 threads in the first of 4 assignments/,
     'check --placement all: the assignments it would run');

# The process's CPU set: a plan that needs a CPU outside it is refused
SKIP: {
    skip 'no taskset (util-linux)', 6 unless grep { -x "$_/taskset" } split /:/, $ENV{PATH};
    my $log = tmp();
    my $taskset = sub {
        system(join(' ', 'taskset -c 0 ./hopbench', @_) . " >$log/out 2>$log/err");
        return ($? >> 8, Hopbench::slurp("$log/out"), Hopbench::slurp("$log/err"));
    };
    my ($t_rc, $t_out, $t_err) = $taskset->('machine');
    like($t_out, qr/^allowed   0 \(this process's CPU set/m, 'taskset -c 0: hopbench machine says so');
    ($t_rc, $t_out, $t_err) = $taskset->('plan topologies/direct.cfg --set sub.cpus=1');
    is($t_rc, 2, 'taskset -c 0, sub.cpus=1: plan exit 2');
    like($t_err, qr/--set sub\.cpus=1: sub: cpus '1': CPU 1 is outside this process's CPU set 0/,
         'taskset -c 0, sub.cpus=1: names the CPU and the set');
    my $t_dir = tmp() . '/taskset';
    ($t_rc, $t_out, $t_err) = $taskset->("run topologies/direct.cfg --placement compact --sizes 64 "
        . "--messages 1000 --quiet --output $t_dir");
    is($t_rc, 2, 'taskset -c 0, compact: run exit 2, at plan time');
    like($t_err, qr/compact: 2 stage threads need 2 CPUs on node 0, it has 1 that this process may use/,
         'taskset -c 0, compact: says what the CPU set lacks');
    ok(!-e $t_dir, 'taskset -c 0, compact: nothing ran');
}

# Every description: `hopbench machine --machine` shows what the file says
for my $file (sort glob 'numa/*.cfg') {
    my ($machine_rc, $printed) = hopbench('machine', '--machine', $file);
    is($machine_rc, 0, "hopbench machine --machine $file: exit 0");
    my ($got, $want) = (machine_printed($printed), description($file));
    is_deeply([ @$got{qw(cpus distances)} ], [ @$want{qw(cpus distances)} ],
              "hopbench machine --machine $file: its nodes, CPUs and distances");
}

# ----------------------------------------- a one-node machine: no, or one

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

# placement all on one node: one assignment, and why; proxy's three stage
# threads share this machine's CPUs if it has fewer (they say so); a row
# for several publishers (pub.* into zmq_proxy_steerable) names their CPUs
SKIP: {
    skip 'this machine has more than one NUMA node', 17 if $two_nodes_here;
    my $out = tmp();
    ($rc, my $stdout, $err) = hopbench(qw(run topologies/proxy.cfg --placement all --sizes 64
        --messages 2000 --output), "$out/all");
    is($rc, 0, 'run --placement all on one node: exit 0') or diag $err;
    like($err, qr/placement all: this machine has one NUMA node \(node 0\): every assignment puts every stage on it, so there is one/,
         'run --placement all on one node: says why there is one assignment');
    like($stdout, qr/^placement all: 1 distinct assignment of 3 stages to 1 node/m,
         'run --placement all on one node: the summary');
    my @placed = @{ csv("$out/all/placements.csv")->{rows} };
    is(join(' ', map { "$_->{nodes}:$_->{rank}" } @placed), '0+0+0:1',
       'placements.csv: the one assignment, ranked');
    my @hops = @{ csv("$out/all/results.csv")->{rows} };
    is(join(' ', map { $_->{sweep_nodes} } @hops), '0+0+0 0+0+0', 'results.csv: sweep_nodes');
    is($placed[0]{last_hop_msgs_per_sec}, $hops[-1]{msgs_per_sec},
       'placements.csv: the last hop\'s rate from results.csv');
    ($rc, undef, $err) = hopbench(qw(run topologies/fanin.cfg --set engine=steerable --placement all
        --sizes 64 --messages 2000 --quiet --output), "$out/fanin");
    is($rc, 0, 'fanin (steerable) --placement all: exit 0') or diag $err;
    my ($fanin) = grep { $_->{from} eq 'pub.*' } @{ csv("$out/fanin/results.csv")->{rows} };
    $fanin //= { from_cpu => 'none', from_node => 'none' };
    like($fanin->{from_cpu}, qr/^\d+(\+\d+)*$/, "fanin: pub.* from_cpu names their CPUs ($fanin->{from_cpu})");
    my %threads = map { $_->{stage} => $_ } grep { $_->{thread} eq 'main' }
        @{ csv("$out/fanin/threads.csv")->{rows} };
    my %cpus = map { ($threads{"pub.$_"} // {})->{last_cpu} // 'none' => 1 } 1 .. 4;
    is($fanin->{from_cpu}, join('+', sort { $a cmp $b } keys %cpus),
       'fanin: pub.* from_cpu is the CPUs the four ran on, joined by +');
    is($fanin->{from_node}, '0', 'fanin: pub.* from_node: the one node they all ran on');
    unlike(Hopbench::slurp("$out/fanin/results.csv"), qr/"/, 'results.csv: CPU lists need no quotes');
    # at a rate, over 3 repetitions: latency ranked too, and min-max
    ($rc, $stdout, $err) = hopbench(qw(run topologies/proxy.cfg --placement all --sizes 64
        --duration 0.2 --repeat 3 --set rate=2000 --output), "$out/rate");
    is($rc, 0, 'run --placement all --set rate=2000 --repeat 3: exit 0') or diag $err;
    like($stdout, qr/median of 3 repetitions \(min - max; no confidence intervals yet\)/,
         'placement all --repeat 3: min-max, and says it has no confidence intervals');
    like($stdout, qr/p50 us\s+p99 us\s+rank/, 'placement all at a rate: latency columns and rank');
    my ($rated) = @{ csv("$out/rate/placements.csv")->{rows} };
    ok($rated && $rated->{p50_us} > 0 && $rated->{p99_us} >= $rated->{p50_us},
       'placements.csv at a rate: end-to-end p50 and p99');
    ok($rated && $rated->{min} <= $rated->{last_hop_msgs_per_sec}
       && $rated->{last_hop_msgs_per_sec} <= $rated->{max}, 'placements.csv: min <= median <= max');
    my @owners = sort map { $_->{stage} } grep { $_->{thread} eq 'main' }
        @{ csv("$out/fanin/threads.csv")->{rows} };
    is("@owners", 'broker controller pub.1 pub.2 pub.3 pub.4 sub',
       'threads.csv: hopbench\'s own main thread under controller');
}

# io_cpus = stage on this machine: each stage's libzmq threads run where
# its thread does, as the run reads them back (threads.csv)
SKIP: {
    # the CPUs this process may use (a taskset or cgroup may narrow them)
    my @online = cpu_list((Hopbench::slurp('/proc/self/status') =~ /^Cpus_allowed_list:\s*(\S+)/m)[0]);
    skip 'io_cpus run: this process may use one CPU', 6 if @online < 2;
    my $out = tmp();
    ($rc, undef, $err) = hopbench(qw(run topologies/libzmq/local_thr.cfg --set transport=ipc
        --sizes 64 --messages 20000 --quiet --output), "$out/io",
        '--set', "remote_thr.cpus=$online[0]", '--set', "local_thr.cpus=$online[1]",
        qw(--set remote_thr.io_cpus=stage --set local_thr.io_cpus=stage));
    is($rc, 0, 'run io_cpus = stage: exit 0') or diag $err;
    my @threads = -e "$out/io/threads.csv" ? @{ csv("$out/io/threads.csv")->{rows} } : ();
    for my $stage (qw(remote_thr local_thr)) {
        my ($main) = grep { $_->{stage} eq $stage && $_->{thread} eq 'main' } @threads;
        my @io = grep { $_->{stage} eq $stage && $_->{thread} =~ m{^ZMQbg/} } @threads;
        my $cpu = $main ? $main->{allowed_cpus} : 'none';
        ok(@io == 2 && !(grep { $_->{allowed_cpus} ne $cpu || $_->{last_cpu} ne $cpu } @io),
           "$stage: its I/O thread and reaper allowed on, and last run on, CPU $cpu");
    }
    my ($hop) = -e "$out/io/results.csv" ? @{ csv("$out/io/results.csv")->{rows} } : ();
    ok($hop && $hop->{received} >= 20000 && $hop->{lost} == 0, 'run io_cpus = stage: the window\'s messages, none lost');
    # the saved config of a pipeline whose shared context moved runs again
    ($rc, undef, $err) = hopbench(qw(run topologies/chain3.cfg --sizes 64 --messages 2000 --quiet
        --set p2.io_cpus=stage --output), "$out/saved", '--set', "p2.cpus=$online[0]");
    is($rc, 0, 'chain3 with p2.io_cpus = stage (p3 and sub share its context): exit 0') or diag $err;
    ($rc, undef, $err) = hopbench('check', "$out/saved/config.cfg");
    is($rc, 0, 'its config.cfg (every stage\'s io_cpus written out) is accepted') or diag $err;
}

# ------------------------------------------------------------- real nodes


# One trial's threads.csv rows against the plan: the same threads (by the
# plan's names), each allowed exactly the plan's CPUs, none allowed CPUs
# of two nodes, and the controller's CPU no stage thread's
sub plan_is_run {
    my ($name, $machine, $plan, $threads) = @_;
    my %planned = map { ("$_->{stage} $_->{thread}" => $_) } @$plan;
    my %seen = map { ("$_->{stage} " . roster_name($_->{thread}) => $_) } @$threads;
    is_deeply([ sort keys %seen ], [ sort keys %planned ],
              "$name: threads.csv has the threads the plan lists, no more, no fewer");
    my @spanning = grep { nodes_of($machine, $_->{allowed_cpus}) > 1 } @$threads;
    is(join(', ', map { "$_->{stage} $_->{thread} ($_->{allowed_cpus})" } @spanning), '',
       "$name: no thread may use CPUs of two nodes, the controller's included");
    my @off = grep { my $p = $planned{"$_->{stage} " . roster_name($_->{thread})};
                     $p && !same_cpus($_->{allowed_cpus}, [ cpu_list($p->{cpus}) ]) } @$threads;
    is(join(', ', map { "$_->{stage} $_->{thread} ($_->{allowed_cpus})" } @off), '',
       "$name: every thread allowed exactly the CPUs the plan gives it");
    my ($home) = grep { $_->{stage} eq 'controller' && $_->{thread} eq 'main' } @$plan;
    my @stages_there = grep { $_->{thread} eq 'main' && $_->{stage} ne 'controller'
                              && $_->{allowed_cpus} eq $home->{cpus} } @$threads;
    is(scalar @stages_there, 0, "$name: the controller's CPU $home->{cpus} runs no stage thread");
}

# memory.csv: every page of every stage's counters, message buffer and
# stack on the stage's node
sub memory_on_node {
    my ($name, $memory, $node_of_stage) = @_;
    my %counted;
    for my $m (@$memory) {
        my $node = $node_of_stage->{ $m->{stage} } // 'none';
        $counted{ $m->{stage} }{ $m->{region} } = 1;
        is("$m->{node} $m->{on_node}", "$node $m->{present}",
           "$name: $m->{stage}'s $m->{region}: all $m->{present} pages on node $node ($m->{by_node})")
            if $m->{present} > 0;
    }
    for my $stage (sort keys %$node_of_stage) {
        ok($counted{$stage}{counters} && $counted{$stage}{messages} && $counted{$stage}{stack},
           "$name: memory.csv counts ${stage}'s counters, messages and stack");
    }
}

sub node_of_stage { return { map { $_->{stage} => $_->{node} } main_rows(@{ $_[0] }) } }

# Two nodes, 2 CPUs each: proxy split in threads and in processes, and
# mixed over two trials (memory in each, for stages that share a context)
subtest "2 nodes x 2 CPUs ($where): every thread placed, memory on its node" => sub {
    plan skip_all => $no_two_nodes if $no_two_nodes;
    my ($vm_rc, $output) = shell_finish($vm_job{two});
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
        is_deeply(csv_text($s->{'plan-proxy'})->{rows}, $host_plan,
                  'the plan in the VM is the plan for numa/vm-2x2.cfg');
    }
    for my $t (qw(proxy proxy-procs)) {
        my $plan = csv_text($s->{"plan-$t"})->{rows};
        my %planned = map { $_->{stage} => $_ } main_rows(@$plan);
        my $broker = $t eq 'proxy' ? 'broker' : 'proxy';
        is(join(' ', map { "$_:" . ($planned{$_}{node} // 'none') } 'pub', $broker, 'sub'),
           "pub:0 $broker:0 sub:1", "$t plan: pub and $broker on node 0, sub on node 1");
        like($s->{"run-$t"}, qr/^exit 0$/m, "$t --placement split: exit 0") or diag $s->{"run-$t"};

        # results.csv: the CPUs and nodes read back, hop by hop
        my @hops = @{ csv_text($s->{"$t-results.csv"})->{rows} };
        is(join(' ', map { $_->{hop} } @hops), '1 2', "$t results.csv: hops 1 and 2");
        is(scalar(grep { $_->{from_node} ne $_->{to_node} } @hops), 1,
           "$t results.csv: exactly one hop crosses nodes");
        for my $r (@hops) {
            ok($r->{received} > 0, "$t hop $r->{hop}: $r->{received} messages arrived");
            for my $end (qw(from to)) {
                my ($stage, $cpu, $node) = ($r->{$end}, $r->{"${end}_cpu"}, $r->{"${end}_node"});
                my $want = $planned{$stage} // {};
                is("$cpu/$node", ($want->{cpus} // '') . '/' . ($want->{node} // ''),
                   "$t hop $r->{hop}: $stage ran where the plan put it");
            }
        }
        my @threads = @{ csv_text($s->{"$t-threads.csv"})->{rows} };
        plan_is_run("$t split", $machine, $plan, \@threads);
        for my $m (grep { $_->{thread} eq 'main' && $_->{stage} ne 'controller' } @threads) {
            my $node = ($planned{ $m->{stage} } // {})->{node} // 'none';
            is($machine->{node_of}{ $m->{last_cpu} }, $node, "$t threads.csv: $m->{stage} main ran on node $node");
            is($m->{mem_node}, $node, "$t threads.csv: $m->{stage}'s message buffer on its node");
        }
        memory_on_node("$t split", csv_text($s->{"$t-memory.csv"})->{rows}, node_of_stage($plan));
        my $meta = eval { decode_json($s->{"$t-metadata.json"}) } // {};
        is_deeply($meta->{warnings}, [], "$t metadata.json: no placement or memory warnings");
    }

    # mixed: every trial, every stage, also one that joins another's
    # context; and were it not so, hopbench would say so
    like($s->{'run-mixed'}, qr/^exit 0$/m, 'mixed --repeat 2: exit 0');
    my %node = %{ node_of_stage(csv_text($s->{'plan-mixed'})->{rows}) };
    my @main = main_rows(@{ csv_text($s->{'mixed-threads.csv'})->{rows} });
    is(scalar @main, 8, 'mixed threads.csv: 4 stage threads in each of 2 trials');
    my @memory = @{ csv_text($s->{'mixed-memory.csv'})->{rows} };
    is(scalar(grep { $_->{region} eq 'counters' } @memory), 8, 'mixed memory.csv: 4 stages in each of 2 trials');
    my %what = (counters => 'counters', messages => 'message buffer', stack => 'stack');
    my %off = map { ("stage $_->{stage}: " . ($_->{present} - $_->{on_node}) . " of the $_->{present} "
                     . "pages of its $what{ $_->{region} } are off node $_->{node} (pages by node: "
                     . "$_->{by_node})" => 1) }
              grep { $_->{on_node} != $_->{present} } @memory;
    my $meta = eval { decode_json($s->{'mixed-metadata.json'}) } // {};
    my @said = grep { /pages of its/ } @{ $meta->{warnings} // [] };
    is_deeply([ sort @said ], [ sort keys %off ], 'mixed metadata.json warns about exactly the memory off its node');
    for my $t (@main) {
        is($t->{mem_node}, $node{ $t->{stage} },
           "mixed trial $t->{repeat}: $t->{stage} message memory on node $node{ $t->{stage} }");
    }
    memory_on_node('mixed', \@memory, \%node);
};

# Three nodes, 2 CPUs each: spread puts pub, the broker and sub on nodes
# 0, 1 and 2; the controller takes node 0's other CPU.  In threads, in
# processes, and with a zproxy in its own process (czmq's context there
# is its I/O, on its node)
subtest 'spread over 3 nodes (-n 3 -c 2): the controller confined, counters on each node' => sub {
    plan skip_all => $no_vm if $no_vm;
    my ($vm_rc, $output) = shell_finish($vm_job{three});
    is($vm_rc, 0, 'the commands ran in the 3-node VM') or diag $output;
    my $s = sections($output);
    my $machine = machine_printed($s->{machine});
    is(scalar keys %{ $machine->{cpus} }, 3, 'the VM has 3 nodes');
    for my $name (qw(threads processes zproxy)) {
        my $plan = csv_text($s->{"plan-$name"})->{rows};
        like($s->{"run-$name"}, qr/^exit 0$/m, "$name: run exit 0") or diag $s->{"run-$name"};
        is(join(' ', map { $_->{node} } main_rows(@$plan)), '0 1 2', "$name plan: one stage per node");
        is(join(' ', map { "$_->{node}:$_->{cpus}" } grep { $_->{thread} eq 'main' } controller_rows(@$plan)),
           '0:1', "$name plan: the controller on node 0's free CPU");
        my @threads = @{ csv_text($s->{"$name-threads.csv"})->{rows} };
        plan_is_run($name, $machine, $plan, \@threads);
        my @home = grep { $_->{stage} eq 'controller' } @threads;
        is(join(' ', map { $_->{allowed_cpus} } @home), join(' ', ('1') x @home),
           "$name threads.csv: the controller's threads ("
           . join(', ', map { $_->{thread} } @home) . ') may use CPU 1 only');
        memory_on_node($name, csv_text($s->{"$name-memory.csv"})->{rows}, node_of_stage($plan));
        my $meta = eval { decode_json($s->{"$name-metadata.json"}) } // {};
        is_deeply($meta->{warnings}, [], "$name metadata.json: no warnings");
    }
    my @czmq = grep { $_->{stage} eq 'broker' && $_->{thread} =~ m{^ZMQbg/} }
        @{ csv_text($s->{'zproxy-threads.csv'})->{rows} };
    ok(@czmq && !(grep { !same_cpus($_->{allowed_cpus}, $machine->{cpus}{1}) } @czmq),
       'zproxy in its own process: czmq\'s threads there are its I/O, on node 1');
};

# Two nodes of two cores x two SMT threads: compact gives stage threads a
# core each while there are free cores; placement all runs each distinct
# assignment of proxy's three stages once.  2^3 = 8 assignments; the two
# nodes are alike, so renaming them pairs them (0+0+1 is 1+1+0), leaving
# 4: 0+0+0 (no crossing), 0+0+1 (hop 2 crosses), 0+1+0 (both), 0+1+1
# (hop 1).  All fit: even 0+0+0's three stage threads have node 0's four
# CPUs (two cores, then a sibling), and the controller a core of node 1
subtest '2 nodes x 2 cores x 2 threads (-c 4 -s 2): compact, and placement all' => sub {
    plan skip_all => $no_vm if $no_vm;
    my ($vm_rc, $output) = shell_finish($vm_job{smt});
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

    # placement all: the study, each assignment once
    my @want = ('0+0+0', '0+0+1', '0+1+0', '0+1+1');
    is(join(' ', map { $_->{nodes} } @{ csv_text($s->{'plan-all'})->{rows} }), "@want",
       'plan --placement all: the 4 distinct assignments');
    like($s->{all}, qr/^exit 0$/m, 'run --placement all: exit 0');
    like($s->{all}, qr/^placement all: 4 distinct assignments of 3 stages to 2 nodes \(of 8; nodes 0-1 are alike\)/m,
         'the summary: 4 of 8, and why');
    my %listed;
    $listed{$1}++ while $s->{all} =~ /^\s+\d+\s+(\d\+\d\+\d)\s+\d\s+[\d,]+/mg;
    is_deeply(\%listed, { map { $_ => 1 } @want }, 'the summary lists each assignment once');
    my @placed = @{ csv_text($s->{'all-placements.csv'})->{rows} };
    is(join(' ', sort map { $_->{nodes} } @placed), "@want", 'placements.csv: each assignment once');
    is(join(' ', sort { $a <=> $b } map { $_->{crossings} } @placed), '0 1 1 2',
       'placements.csv: crossings 0, 1 and 2');
    is(join(' ', sort { $a <=> $b } map { $_->{rank} } @placed), '1 2 3 4', 'placements.csv: ranks 1 to 4');
    my %runs = map { $_->{sweep_nodes} => 1 } @{ csv_text($s->{'all-results.csv'})->{rows} };
    is(join(' ', sort keys %runs), "@want", 'results.csv: one run per assignment (sweep_nodes)');
    my @threads = @{ csv_text($s->{'all-threads.csv'})->{rows} };
    my @memory = @{ csv_text($s->{'all-memory.csv'})->{rows} };
    my $machine = machine_printed($s->{machine});
    for my $a (@want) {
        my $plan = csv_text($s->{"plan-$a"})->{rows};
        my @mine = grep { $_->{sweep_nodes} eq $a } @threads;
        plan_is_run("assignment $a", $machine, $plan, \@mine);
        my %node = %{ node_of_stage($plan) };
        is(join('+', map { $node{$_} // 'none' } qw(pub broker sub)), $a, "assignment $a: the plan's nodes");
        for my $m (grep { $_->{thread} eq 'main' && $_->{stage} ne 'controller' } @mine) {
            is($machine->{node_of}{ $m->{last_cpu} }, $node{ $m->{stage} },
               "assignment $a: $m->{stage} ran on node $node{ $m->{stage} }");
        }
        memory_on_node("assignment $a", [ grep { $_->{sweep_nodes} eq $a } @memory ], \%node);
    }
    my $meta = eval { decode_json($s->{'all-metadata.json'}) } // {};
    is_deeply($meta->{warnings}, [], 'placement all: no placement or memory warnings');
};

done_testing();
