#!/usr/bin/perl
# make deb: the package, its files and control, its maintainer script,
# the agent's systemd unit (systemd-analyze verify and security), and the
# packaged agent serving one run.  The package is unpacked into a scratch
# root with dpkg -x, never installed on this machine; the agent runs from
# that root in a network namespace, with the command line the unit
# builds from an environment file, as an unprivileged user with no new
# privileges (setpriv), the way the unit runs it.
#
#     [ctl .10] -- bridge -- [h1 .1] packaged agent :7800 (sub)
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Hopbench;
use Netns;
use Cwd qw(getcwd);
use Test::More;

chdir "$FindBin::Bin/..";
plan skip_all => 'make deb needs dpkg-deb (Debian: dpkg)'
    if system('command -v dpkg-deb >/dev/null') != 0;
my $root = getcwd();
my $work = tmp();
chmod 0755, $work;

# The package
my $out = "$work/deb";
my $made = `make -j2 --no-print-directory deb DEB_DIR=$out 2>&1`;
is($?, 0, 'make deb: exit 0') or diag $made;
my ($deb) = glob "$out/hopbench_*.deb";
ok($deb && -s $deb, 'make deb: a package') or BAIL_OUT("no package in $out: $made");
my @files = map { (split ' ', $_, 6)[5] =~ s/^\.\///r } grep { !/^d/ } split /\n/, `dpkg-deb -c $deb`;
my @own = sort grep { !m{^usr/share/hopbench/} } @files;
is_deeply(\@own, [ 'etc/hopbench/agent.env', 'lib/systemd/system/hopbench-agent@.service', 'usr/bin/hopbench',
                   'usr/share/doc/hopbench/README.md', 'usr/share/doc/hopbench/changelog.gz',
                   'usr/share/doc/hopbench/copyright',
                   'usr/share/man/man1/hopbench.1.gz', 'usr/share/man/man5/hopbench-topology.5.gz' ],
          'the package: binary, both man pages, the unit, its commented settings (a conffile), README, changelog, copyright');
ok((grep { $_ eq 'usr/share/hopbench/topologies/proxy.cfg' } @files)
   && (grep { $_ eq 'usr/share/hopbench/numa/vm-2x2.cfg' } @files),
   'the package: the shipped topologies and machine descriptions');
my ($version) = `./hopbench --version` =~ /^hopbench (\S+)/;
is(`dpkg-deb -f $deb Package Version Architecture`,
   "Package: hopbench\nVersion: $version\nArchitecture: " . `dpkg --print-architecture`,
   'control: package, version, architecture');
my $depends = `dpkg-deb -f $deb Depends`;
like($depends, qr/^libaudit1 \(>= [\d:.]+\), libc6 \(>= [\d.]+\), libczmq4 \(>= [\d.]+\), libjansson4 \(>= [\d.]+\), libnuma1 \(>= [\d.]+\), libzmq5 \(>= [\d.]+\), adduser$/,
     'control: the libraries it links, and adduser') or diag $depends;

# Debian's standard: lintian (pedantic) has nothing to say, and the
# binary carries Debian's hardening (hardening-check; its control-flow
# row needs CET-marked C start files, which bookworm's libc6-dev does not
# ship, so it is not asked)
SKIP: {
    skip 'no lintian (Debian: lintian)', 1 if system('command -v lintian >/dev/null') != 0;
    my $said = `lintian --pedantic $deb 2>&1`;
    $said =~ s/^running with root privileges is not recommended!\n//m;
    is($said, '', 'lintian --pedantic: not one tag') or diag $said;
}
SKIP: {
    skip 'no hardening-check (Debian: devscripts)', 5
        if system('command -v hardening-check >/dev/null') != 0;
    my $x = "$work/hardening";
    system('dpkg', '-x', $deb, $x);
    my $said = `hardening-check $x/usr/bin/hopbench 2>&1`;
    for my $row ('Position Independent Executable', 'Stack protected', 'Fortify Source functions',
                 'Read-only relocations', 'Immediate binding') {
        like($said, qr/^ \Q$row\E: yes/m, "hardening-check: $row") or diag $said;
    }
}

# The postinst, its commands stood in for: the user, then the key folders
my $scripts = "$work/DEBIAN";
system('dpkg-deb', '-e', $deb, $scripts);
my $stub = "$work/stubs";
mkdir $stub;
for my $cmd (qw(getent adduser install systemctl)) {
    write_file("$stub/$cmd", "#!/bin/sh\necho \"$cmd \$*\" >>'$stub/log'\n"
        . ($cmd eq 'getent' ? "exit 2\n" : "exit 0\n"));
    chmod 0755, "$stub/$cmd";
}
is(system("PATH='$stub':/usr/bin:/bin sh $scripts/postinst configure"), 0, 'postinst configure: exit 0');
like(Hopbench::slurp("$stub/log"),
     qr/^getent passwd hopbench\nadduser --system --group --home \/nonexistent --no-create-home .*hopbench\n(?s:.*)^install -d -o hopbench -g hopbench -m 0700 \/etc\/hopbench\/keys$/m,
     'postinst: makes the system user hopbench, and its private key folder');

# An upgrade restarts the agents that run; a first install and an upgrade's
# prerm leave them be; a removal stops them.  systemd is stood in for: in a
# mount namespace of its own, /run/systemd/system says systemd runs, /etc
# is a scratch tmpfs holding two agents' settings, and systemctl and
# deb-systemd-invoke only log what they are asked
SKIP: {
    skip 'the upgrade case needs root and unshare (util-linux)', 4
        if $> != 0 || system('command -v unshare >/dev/null') != 0;
    my $fake = "$work/upgrade";
    mkdir $fake;
    for my $cmd (qw(getent adduser install systemctl deb-systemd-invoke)) {
        write_file("$fake/$cmd", "#!/bin/sh\necho \"$cmd \$*\" >>'$fake/log'\n");
        chmod 0755, "$fake/$cmd";
    }
    my $systemd = 'mount -t tmpfs none /run && mkdir -p /run/systemd/system && '
        . 'mount -t tmpfs none /etc && mkdir /etc/hopbench && '
        . 'touch /etc/hopbench/h1.env /etc/hopbench/h2.env && '
        . "PATH='$fake':/usr/bin:/bin";
    my $script = sub {
        my ($name, @args) = @_;
        unlink "$fake/log";
        system('unshare', '-m', 'sh', '-c', "$systemd sh $scripts/$name @args") == 0 or return "exit $?";
        return join ' | ', grep { /systemd|systemctl/ } split /\n/, Hopbench::slurp("$fake/log");
    };
    is($script->('postinst', 'configure', '0.0.9'),
       'systemctl --system daemon-reload | deb-systemd-invoke restart hopbench-agent@h1.service hopbench-agent@h2.service',
       'an upgrade (postinst configure 0.0.9): the agents restart on the new binary');
    is($script->('postinst', 'configure', "''"), 'systemctl --system daemon-reload',
       'a first install: no agent to restart');
    is($script->('prerm', 'upgrade', '0.1.0'), '', 'an upgrade\'s prerm: the agents keep running');
    is($script->('prerm', 'remove'), "deb-systemd-invoke stop hopbench-agent\@*.service",
       'a removal: the agents stop before their program goes');
}

# Unpacked into a scratch root
my $tree = "$work/root";
is(system('dpkg', '-x', $deb, $tree), 0, 'dpkg -x: exit 0');
my $agent = "$tree/usr/bin/hopbench";
is(`$agent --version`, `./hopbench --version`, 'the packaged binary runs');
like(`man -l $tree/usr/share/man/man1/hopbench.1.gz 2>/dev/null | head -20`, qr/hopbench - /,
     'the packaged man page reads');

# The unit
my $unit_path = "$tree/lib/systemd/system/hopbench-agent@.service";
my %unit;
for (split /\n/, Hopbench::slurp($unit_path)) {
    $unit{$1} = $2 if /^(\w+)=(.*)$/;
}
is($unit{EnvironmentFile}, '/etc/hopbench/%i.env', 'unit: an instance\'s settings are /etc/hopbench/NAME.env');
is("$unit{User}:$unit{Group}", 'hopbench:hopbench', 'unit: runs as the user hopbench');
is($unit{Restart}, 'on-failure', 'unit: restarts on failure');
is(join(' ', map { "$_=" . ($unit{$_} // '') } qw(NoNewPrivileges ProtectSystem ProtectHome PrivateTmp)),
   'NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes', 'unit: hardened');
my ($body) = Hopbench::slurp($unit_path) =~ /^(\[Unit\].*)\z/ms;
(my $shown = $body) =~ s/^(?=.)/    /mg;
ok(index(Hopbench::slurp('docs/HOSTS.md'), $shown) >= 0, 'docs/HOSTS.md shows the unit as it is');
SKIP: {
    skip 'no systemd-analyze (Debian: systemd)', 3
        if system('command -v systemd-analyze >/dev/null') != 0;
    # the scratch root with this machine's units (the targets it names)
    system("cp -an /lib/systemd/system/. $tree/lib/systemd/system/");
    my $said = `MANPATH=$tree/usr/share/man systemd-analyze verify --root=$tree hopbench-agent\@h1.service 2>&1`;
    is($?, 0, 'systemd-analyze verify: exit 0');
    is($said, '', 'systemd-analyze verify: not one warning') or diag $said;
    my $security = `systemd-analyze security --offline=true --root=$tree hopbench-agent\@h1.service 2>&1`;
    my ($exposure) = $security =~ /Overall exposure level for \S+: ([\d.]+)/;
    ok(defined $exposure && $exposure <= 2.0,
       'systemd-analyze security: exposure ' . ($exposure // '?') . ' of 10, at most 2.0') or diag $security;
}

# The packaged agent serves a run
SKIP: {
    skip 'the agent runs in a network namespace: root only', 8 if $> != 0;
    skip 'needs iproute2 (ip) and setpriv (util-linux)', 8
        if system('command -v ip >/dev/null && command -v setpriv >/dev/null') != 0;
    my $net = Netns->new(id => 'db' . ($$ % 1000000), subnet => '169.254.79',
                         hosts => { c => 10, h1 => 1 }, work => $work);
    $net->up or BAIL_OUT('cannot make the test\'s network namespaces');
    mkdir "$work/keys";
    for my $name (qw(ctl h1)) {
        my ($rc, undef, $err) = hopbench('keygen', "$work/keys", '--name', $name);
        is($rc, 0, "keygen $name") or diag $err;
    }
    # the agent's user: nobody here, owning its secret and its TMPDIR
    my ($uid, $gid) = (getpwnam('nobody'))[2, 3];
    chown $uid, $gid, "$work/keys/h1.cert_secret";
    chmod 0755, "$work/keys";
    mkdir "$work/agent-tmp";
    chown $uid, $gid, "$work/agent-tmp";
    # /etc/hopbench/h1.env, as docs/HOSTS.md writes it
    my %env = (HOPBENCH_BIND => 'tcp://' . $net->addr('h1') . ':7800',
               HOPBENCH_ALLOW => "$work/keys/ctl.cert",
               HOPBENCH_CERT => "$work/keys/h1.cert_secret");
    write_file("$work/h1.env", join '', map { "$_=$env{$_}\n" } sort keys %env);
    # the command line as systemd makes it: ${VAR} is the whole value
    my %given = map { /^(\w+)=(.*)$/ ? ($1 => $2) : () } split /\n/, Hopbench::slurp("$work/h1.env");
    my @command = map { s/^\$\{(\w+)\}$/$given{$1}/er } split ' ', $unit{ExecStart};
    is($command[0], '/usr/bin/hopbench', 'unit: ExecStart is the packaged binary');
    $command[0] = $agent;
    my $pid = $net->spawn('h1', 'agent', 'env', "TMPDIR=$work/agent-tmp", 'setpriv',
        "--reuid=$uid", "--regid=$gid", '--clear-groups', '--no-new-privs',
        '--inh-caps=-all', '--bounding-set=-all', @command);
    my $serving = 0;
    for (1 .. 100) {
        last if ($serving = Hopbench::slurp("$work/agent.out") =~ /serving at tcp:\/\/169\.254\.79\.1:7800/);
        select undef, undef, undef, 0.05;
    }
    ok($serving, 'the packaged agent, unprivileged, serves') or diag Hopbench::slurp("$work/agent.err");
    write_file("$work/hosts.cfg", "host = h1\n    agent = $env{HOPBENCH_BIND}\n    cert = keys/h1.cert\n");
    write_file("$work/far.cfg", "topology = far\n    transport = tcp\n    timeout = 10\n"
        . "publisher = pub\nhop\nsubscriber = sub\n    host = h1\n");
    my $run = $net->spawn('c', 'ctl', 'timeout', '-k', '5', '60', "$root/hopbench", 'run', "$work/far.cfg",
        '--hosts', "$work/hosts.cfg", '--cert', "$work/keys/ctl.cert_secret",
        qw(--sizes 64 --duration 0.3 --quiet --output), "$work/run");
    waitpid($run, 0);
    is($? >> 8, 0, 'a run with its subscriber on h1: exit 0') or diag Hopbench::slurp("$work/ctl.err");
    my ($row) = @{ csv("$work/run/results.csv")->{rows} };
    ok($row && $row->{to_host} eq 'h1' && $row->{received} > 0 && $row->{msgs_per_sec} > 0
       && $row->{lost} == $row->{sent} - $row->{received},
       'the subscriber on h1 took messages, counted') or diag explain $row;
    like(Hopbench::slurp("$work/ctl.out"), qr/^\s+1\s+pub -> sub\@h1\s+tcp\s/m, 'the table names h1');
    is($net->stop($pid), 0, 'the packaged agent ends cleanly on SIGTERM')
        or diag Hopbench::slurp("$work/agent.err");
    $net->cleanup;
}
done_testing();
