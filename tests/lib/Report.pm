# Report.pm: what the tests of the report page share (41-report.t,
# 43-page.t): a run into a directory of its own, its page, and the page
# in headless Chromium.
#
#     Report::quick(qw(--duration 0.2 --quiet));    # every run's options
#     my $dir = run_dir('proxy', qw(topologies/proxy.cfg --sizes 64));
#     my ($path, $html) = report_page('proxy', $dir);
#     my ($stdout, $console, $outside) = browse("$dir/report.html", '--dump-dom')
#         if chromium();
#
# run_dir and report_page assert their exit status (one test each);
# browse gives the page's console messages and the URLs it asked for
# other than the browser's own services.
package Report;

use strict;
use warnings;
use Exporter 'import';
use Hopbench;
use Test::More;

our @EXPORT = qw(run_dir report_page have chromium browse);

my @quick;

# The options every run_dir appends (the test's windows)
sub quick { @quick = @_ }

# A run into its own directory: the directory
sub run_dir {
    my ($what, @args) = @_;
    my $out = tmp();
    my ($rc, undef, $err) = hopbench('run', @args, @quick, '--output', $out);
    is($rc, 0, "$what: the run exits 0") or diag $err;
    return $out;
}

# hopbench report DIR...: the page's path and text
sub report_page {
    my ($what, @dirs) = @_;
    my ($rc, $stdout, $err) = hopbench('report', @dirs);
    is($rc, 0, "$what: report exits 0") or diag $err;
    chomp $stdout;
    return ($stdout, Hopbench::slurp($stdout));
}

# The first executable NAME on PATH, or undef
sub have {
    my ($name) = @_;
    my ($path) = grep { -x $_ } map { "$_/$name" } split /:/, $ENV{PATH} // '';
    return $path;
}

sub chromium { return have('chromium') // have('chromium-browser') }

my @flags = qw(--headless --no-sandbox --disable-gpu --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --disable-default-apps --disable-extensions --enable-logging=stderr --v=0);

# FILE in headless Chromium with more flags (bounded): its stdout, the
# page's console messages, and the URLs asked for outside the file other
# than the browser's own (its update and account services)
sub browse {
    my ($file, @more) = @_;
    my $dir = tmp();
    my $cmd = join ' ', map { quotemeta } 'timeout', '-k', '5', '120',
      chromium(), @flags, "--log-net-log=$dir/net.json", "--user-data-dir=$dir/profile",
      @more, "file://$file";
    system("$cmd >$dir/out 2>$dir/err");
    my @console = Hopbench::slurp("$dir/err") =~ /:CONSOLE[^\]]*\] (.*)/g;
    my %urls = map { $_ => 1 } Hopbench::slurp("$dir/net.json") =~ /"url":"([^"]*)"/g;
    my @out = grep { !m{^https?://[^/]*(google\.com|googleapis\.com|gvt1\.com)/} }
      grep { !/^(file|data|about|chrome|blob):/ } sort keys %urls;
    return (Hopbench::slurp("$dir/out"), \@console, \@out);
}

1;
