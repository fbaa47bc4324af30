#!/usr/bin/perl
# The modules' own selftests (tests/selftest prints TAP).
use strict;
use warnings;
use FindBin;

chdir "$FindBin::Bin/.." or die "$FindBin::Bin/..: $!";
exec 'tests/selftest' or die "tests/selftest: $!";
