#!/usr/bin/perl
# What a topology file may hold (docs/LIMITS.md, "Files"): a UTF-8
# byte-order mark at its very start is skipped, and check says so; one
# anywhere else is refused by name; CRLF line ends are read as LF; a NUL
# byte is refused at its line.  Every input file (topology, --hosts and
# its certs, --cert, --machine, --allow) is read once: a FIFO, a pipe or
# stdin works; a FIFO nobody writes ends at the timeout; what is not a
# certificate is named.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Test::More;

chdir "$FindBin::Bin/..";
my $dir = tmp();
my $bom = "\xEF\xBB\xBF";
my $direct = "# direct\ntopology = t\n    sizes = 64\npublisher = pub\nhop = ipc\nsubscriber = sub\n";

write_file("$dir/bom.cfg", $bom . $direct);
my ($rc, $out, $err) = hopbench('check', "$dir/bom.cfg");
is($rc, 0, 'a BOM at the start: check exit 0') or diag $err;
like($out, qr/bom\.cfg:1: note: skipped the UTF-8 byte-order mark at the start\n.*bom\.cfg: ok \(pubsub, 2 stages/,
    'a BOM at the start: check says it was skipped');
($rc, $out, $err) = hopbench('plan', "$dir/bom.cfg", '--format', 'csv');
is($rc, 0, 'a BOM at the start: plan exit 0') or diag $err;
unlike($out, qr/byte-order/, 'a BOM at the start: plan output as without it');

(my $crlf = $bom . $direct) =~ s/\n/\r\n/g;
write_file("$dir/crlf.cfg", $crlf);
($rc, $out, $err) = hopbench('check', "$dir/crlf.cfg");
is($rc, 0, 'a BOM and CRLF: check exit 0') or diag $err;

(my $middle = $direct) =~ s/^publisher/${bom}publisher/m;
write_file("$dir/middle.cfg", $middle);
($rc, $out, $err) = hopbench('check', "$dir/middle.cfg");
is($rc, 2, 'a BOM in the middle: exit 2');
like($err, qr/middle\.cfg:4: a UTF-8 byte-order mark \(U\+FEFF\) before 'publisher = pub'/,
    'a BOM in the middle: named, at its line');

write_file("$dir/twice.cfg", $bom . $bom . $direct);
($rc, $out, $err) = hopbench('check', "$dir/twice.cfg");
is($rc, 2, 'two BOMs: exit 2');
like($err, qr/twice\.cfg:1: a UTF-8 byte-order mark/, 'two BOMs: the second is named');

# A machine description is read the same way
write_file("$dir/machine.cfg", $bom . "machine = m\nnode = 0\n    cpus = 0-1\n    distances = 10\n");
($rc, $out, $err) = hopbench('machine', '--machine', "$dir/machine.cfg");
is($rc, 0, 'a BOM in a machine description: exit 0') or diag $err;
like($out, qr/^machine\s+m /, 'a BOM in a machine description: read');

# Every input file is read once, whole: a FIFO with a writer works, one
# without ends at the command line's timeout, never hangs; a pipe or
# stdin works as a topology.
use POSIX qw(mkfifo WNOHANG);
use Time::HiRes qw(time sleep);
my @writers;
END { kill 'KILL', @writers; waitpid($_, 0) for @writers }

# A FIFO at path; with text, a writer that writes it once opened
my $fifos = 0;
sub fifo {
    my ($text) = @_;
    my $path = "$dir/fifo" . ++$fifos;
    mkfifo($path, 0600) or die "mkfifo: $!";
    return $path unless defined $text;
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        open my $fh, '>', $path or POSIX::_exit(1);
        print $fh $text;
        close $fh;
        POSIX::_exit(0);
    }
    push @writers, $pid;
    return $path;
}

my $fifo = fifo($direct);
($rc, $out, $err) = hopbench('check', $fifo);
is($rc, 0, 'a FIFO with a writer as the topology: exit 0') or diag $err;
like($out, qr/fifo1: ok \(pubsub, 2 stages/, 'a FIFO with a writer: checked');

$fifo = fifo();
my $start = time;
($rc, $out, $err) = hopbench('check', $fifo, '--set', 'timeout=1');
my $took = time - $start;
is($rc, 2, 'a FIFO nobody writes: exit 2');
like($err, qr/^hopbench: \Q$fifo\E: no end of file within 1 s \(a FIFO or pipe that nobody writes and closes\?\)$/,
    'a FIFO nobody writes: named, and why');
ok($took >= 1 && $took < 10, "a FIFO nobody writes: ends at the timeout ($took s)");

# SIGTERM while it waits: 143, as a run interrupted
my $pid = fork() // die;
if ($pid == 0) {
    open STDERR, '>', "$dir/term.err";
    exec './hopbench', 'check', $fifo;
}
my $open = 0;
for (1 .. 200) {
    last if ($open = grep { (readlink($_) // '') eq $fifo } glob "/proc/$pid/fd/*");
    sleep 0.05;
}
ok($open, 'SIGTERM: hopbench has the FIFO open');
kill 'TERM', $pid;
waitpid($pid, 0);
is($? >> 8, 143, 'SIGTERM while reading a FIFO: exit 143');
like(Hopbench::slurp("$dir/term.err"), qr/\Q$fifo\E: interrupted by SIGTERM while reading it/,
    'SIGTERM: says so, not "Interrupted system call"');

# A pipe, stdin and /dev/stdin as the topology
write_file("$dir/d.cfg", $direct);
for my $how ('./hopbench check <(cat DIR/d.cfg)', 'cat DIR/d.cfg | ./hopbench check /dev/stdin',
             './hopbench check - <DIR/d.cfg') {
    (my $cmd = $how) =~ s/DIR/$dir/g;
    my $said = `bash -c '$cmd' 2>&1`;
    is($?, 0, "$how: exit 0") or diag $said;
    like($said, qr/^(\/dev\/fd\/\d+|\/dev\/stdin|stdin): ok \(pubsub, 2 stages/, "$how: checked");
}

# NUL: refused at its line
write_file("$dir/nul.cfg", "topology = t\npublisher = pub\nhop = i\0pc\nsubscriber = sub\n");
($rc, $out, $err) = hopbench('check', "$dir/nul.cfg");
is($rc, 2, 'a NUL byte: exit 2');
like($err, qr/nul\.cfg:3: a NUL byte \(not a text file\)/, 'a NUL byte: at its line');

# The files of a run across hosts, each a FIFO: with writers they plan;
# without, each ends at the timeout naming itself
mkdir "$dir/keys";
($rc, $out, $err) = hopbench('keygen', "$dir/keys", '--name', 'ctl');
is($rc, 0, 'keygen') or diag $err;
my %text = (cert => Hopbench::slurp("$dir/keys/ctl.cert_secret"),
            hostcert => Hopbench::slurp("$dir/keys/ctl.cert"),
            machine => Hopbench::slurp('numa/vm-2x2.cfg'));
write_file("$dir/far.cfg", "topology = far\n    transport = tcp\npublisher = pub\nhop\nsubscriber = sub\n    host = h1\n");
sub across {
    my (%given) = @_;
    my %path = map { $_ => $given{$_} // "$dir/$_" } qw(cert hostcert machine);
    write_file($path{$_}, $text{$_}) for grep { !defined $given{$_} } qw(cert hostcert machine);
    my $hosts = "host = h1\n    agent = tcp://127.0.0.1:7999\n    cert = $path{hostcert}\n";
    my $hostsfile = $given{hosts} // "$dir/hosts.cfg";
    write_file($hostsfile, $hosts) unless defined $given{hosts};
    return hopbench('plan', "$dir/far.cfg", '--set', 'timeout=1', '--hosts', $hostsfile,
        '--cert', $path{cert}, '--machine', "h1=$path{machine}");
}
my $hostcert = fifo($text{hostcert});
my $hosts = fifo("host = h1\n    agent = tcp://127.0.0.1:7999\n    cert = $hostcert\n");
($rc, $out, $err) = across(hosts => $hosts, cert => fifo($text{cert}), machine => fifo($text{machine}));
is($rc, 0, '--hosts, its cert, --cert and --machine h1= as FIFOs with writers: plan exit 0') or diag $err;
like($out, qr/^# host h1: vm-2x2 \(.*fifo\d+\)$/m, 'plan: h1 on the description from a FIFO');
for my $file (qw(hosts hostcert cert machine)) {
    my $alone = fifo();
    $start = time;
    ($rc, $out, $err) = across($file => $alone);
    $took = time - $start;
    is($rc, 2, "$file: a FIFO nobody writes: exit 2");
    like($err, qr/\Q$alone\E: no end of file within 1 s/, "$file: a FIFO nobody writes: named") or diag $err;
    ok($took < 10, "$file: ends at the timeout ($took s)");
}

# A controller --cert that is not one: exit 2, the file named, no errno
write_file("$dir/garbage", "not = a certificate\n");
for my $cert ("$dir/keys", '/dev/zero', "$dir/garbage", "$dir/keys/ctl.cert") {
    ($rc, $out, $err) = across(cert => $cert);
    is($rc, 2, "--cert $cert: exit 2");
    like($err, qr/^hopbench: --cert \Q$cert\E: (a directory, not a file|larger than 1048576 bytes|not a certificate \(\Q$cert\E:1: value 'a certificate' has spaces|a public certificate; give its _secret twin)/,
        "--cert $cert: named, and why") or diag $err;
    unlike($err, qr/No such file/, "--cert $cert: no stale errno");
}

# --allow DIR: a file that is not a certificate is named once, skipped;
# czmq prints nothing of it
mkdir "$dir/allow";
write_file("$dir/allow/README", "Certificates of the controllers\nthis agent serves.\n");
($rc, $out, $err) = hopbench('agent', '--bind', 'tcp://127.0.0.1:7998', '--allow', "$dir/allow", '--once');
is($rc, 2, '--allow with no certificate in it: exit 2');
is($err, "hopbench agent: --allow: skipped $dir/allow/README: not a certificate ($dir/allow/README:1: expected '=' after 'Certificates ')\nhopbench: --allow $dir/allow: no certificate in it\n",
   '--allow: the file that is not a certificate named once, and nothing else') or diag $err;
done_testing();
