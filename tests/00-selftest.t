#!/bin/sh
# The modules' own selftests (tests/selftest prints TAP).
cd "$(dirname "$0")/.." && exec tests/selftest
