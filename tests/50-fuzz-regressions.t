#!/usr/bin/perl
# Inputs the fuzzer (make fuzz) found, kept in tests/fuzz/regressions/TARGET/:
# hopbench must answer each with exit 0 or 2, never a crash, whichever way
# a user can hand it over.  When clang's libFuzzer is here, each is also
# replayed through its fuzz target (ASan, UBSan and the target's checks).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $dir = 'tests/fuzz/regressions';

# Exit status of a command (128+N when signal N killed it) and its stdout;
# arguments go to it as they are, newlines and all
my $tmp = tmp();
sub status_of {
    my (@cmd) = @_;
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', "$tmp/out";
        open STDERR, '>', '/dev/null';
        exec 'timeout', '-k', '5', '120', @cmd;
        exit 127;
    }
    waitpid $pid, 0;
    my $rc = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    return ($rc, Hopbench::slurp("$tmp/out"));
}

# Every key with a --set prefix that reaches it: KEY, broker.KEY, hop1.KEY
my @keys;
for (split /\n/, (hopbench('--help-keys'))[1]) {
    my ($key, $where) = /^(\w+)\s+((?:topology|stage|hop)(?:, (?:stage|hop))*)\s/ or next;
    push @keys, $where =~ /topology/ ? $key : $where =~ /stage/ ? "broker.$key" : "hop1.$key";
}
ok(@keys > 10, 'the keys, from --help-keys');

# How a user hands hopbench each kind of input.  fuzz_shape's inputs are
# choices it makes a topology of, nothing a user hands over: they are
# replayed through their target alone (what one built is kept beside the
# topology inputs when it broke hopbench)
sub replays {
    my ($target, $file, $text) = @_;
    return () if $target eq 'shape';
    my @runs = ([ 'check', $file ]);
    if ($target eq 'topology') {
        my @sets = map { ('--set', $_) } $text =~ /^#set (.*)$/mg;
        push @runs, [ 'check', $file, @sets ] if @sets;
    } elsif ($target eq 'machine') {
        push @runs, [ 'machine', '--machine', $file ];
        push @runs, [ 'plan', 'topologies/chain3.cfg', '--machine', $file, '--placement', $_ ]
          for qw(none compact spread split);
    } else {
        push @runs, [ 'check', 'topologies/proxy.cfg', '--set', $text ];
        push @runs, [ 'check', 'topologies/proxy.cfg', '--set', "$_=$text" ] for @keys;
    }
    return @runs;
}

my %files;
for my $file (sort glob "$dir/*/*") {
    my ($target) = $file =~ m{^\Q$dir\E/(\w+)/} or next;
    push @{ $files{$target} }, $file;
    my $text = Hopbench::slurp($file);
    for my $run (replays($target, $file, $text)) {
        my ($rc, $out) = status_of('./hopbench', @$run);
        ok($rc == 0 || $rc == 2, "hopbench @$run[0..1]: exit 0 or 2 (got $rc)");
        is($out, '', "hopbench @$run[0..1]: an error, on stderr only") if $rc == 2;
    }
}

# The same inputs through the fuzz targets, if they can be built here
my $arch = `uname -m`;
chomp $arch;
my $runtime = `clang -print-file-name=libclang_rt.fuzzer-$arch.a 2>/dev/null` // '';
chomp $runtime;
SKIP: {
    skip 'no clang with libFuzzer (Debian: clang libclang-rt-14-dev)', 1
      unless $runtime =~ m{/} && -e $runtime;
    my $jobs = `nproc` || 1;
    chomp $jobs;
    # the targets built to replay (ASan and UBSan, no coverage, -O0)
    my $log = `make -s -j$jobs fuzz-replay 2>&1`;
    is($?, 0, 'make fuzz-replay') or diag $log;
    for my $target (sort keys %files) {
        my ($rc) = status_of("build/fuzz-replay/fuzz_$target", @{ $files{$target} });
        is($rc, 0, "fuzz_$target replays its " . @{ $files{$target} } . ' regression inputs');
    }
}
done_testing();
