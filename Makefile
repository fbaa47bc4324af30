# hopbench: build, run, check, bench, install.
#
#   make            build ./hopbench and its man pages
#   make run        install missing Debian packages (those of README's tour
#                   too), build, run a short sweep
#   make check      selftests and end-to-end tests (prove -w; a Perl warning
#                   or any other stray stderr line fails it: tests/prove-clean)
#   make check SANITIZE=1
#                   the same, built with AddressSanitizer and UBSan
#   make memcheck   valgrind memcheck on a short run of every topology
#   make lint       the layers of src/ against docs/ARCHITECTURE.md
#   make bench      hopbench against raw libzmq loops, results/bench.csv
#   make anchors    hopbench against libzmq's own perf tools (built from
#                   Debian's source of the installed libzmq), results/anchors.csv
#   make fuzz       libFuzzer on the parsers for FUZZ_SECONDS (tests/fuzz)
#   make soak       every topology for SOAK_SECONDS, watching fds, threads
#                   and RSS for growth (tests/soak/run; not in make check)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deb        a Debian package (binary, man pages, the agent's systemd
#                   unit hopbench-agent@.service): build/deb/*.deb, built
#                   with Debian's hardening flags (HARDEN=1, build/hardened)
#
# make also writes the man pages hopbench.1 and hopbench-topology.5 (man
# ./hopbench.1 reads one), with build/FLAVOUR/manpage: a program of its own,
# linked with hopbench's objects, that writes them from the program's own
# option and key tables.
#
# Objects go to build/normal or build/sanitize (SANITIZE=1), so the two
# builds never mix; each directory also remembers its flags and rebuilds
# when they change (OPT=...).  ./hopbench and tests/selftest are copies of
# the flavour built last.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
PKGS     = libzmq libczmq numa audit jansson
OPT     ?= -O2 -g
CFLAGS  += $(OPT) -std=gnu11 -Wall -Wextra -pthread -MMD -MP -Isrc
CFLAGS  += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
VERSION  = 0.1.0
CFLAGS  += -DHOPBENCH_VERSION='"$(VERSION)"'

ifeq ($(SANITIZE),1)
FLAVOUR  = sanitize
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined
CFLAGS  += $(SANFLAGS) -fno-omit-frame-pointer
LDFLAGS += $(SANFLAGS)
# What the tests run under: a sanitizer report fails the run with exit 66
# (not 1 or 2, which hopbench itself uses); leaks are checked at exit, with
# tests/lsan.supp for third-party allocations only
export ASAN_OPTIONS  = detect_leaks=1:exitcode=66:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS = print_stacktrace=1:halt_on_error=1:exitcode=66
export LSAN_OPTIONS  = suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0:exitcode=66
else ifeq ($(HARDEN),1)
# Debian's hardening flags (dpkg-buildflags): stack protector, FORTIFY,
# format checks, PIE, RELRO and BIND_NOW; make deb's binary
FLAVOUR  = hardened
HARDEN_FLAGS = DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get
CPPFLAGS += $(shell $(HARDEN_FLAGS) CPPFLAGS 2>/dev/null)
CFLAGS   += $(filter-out -g -O2 -ffile-prefix-map=%,\
                $(shell $(HARDEN_FLAGS) CFLAGS 2>/dev/null))
LDFLAGS  += $(shell $(HARDEN_FLAGS) LDFLAGS 2>/dev/null)
# control-flow protection (CET) on x86, which this dpkg-buildflags does not
# give yet (hardening-check shows it only once the C start files carry it)
ifneq ($(filter x86_64 i686,$(shell uname -m)),)
CFLAGS   += -fcf-protection
endif
else
FLAVOUR  = normal
endif

B        = build/$(FLAVOUR)
# src/LAYER/FILE.c: all but the programs' own files go into every program;
# roff.c only into the man page writer and the selftest
MAIN_SRC = src/app/main.c src/app/selftest.c src/app/manpage.c \
           src/app/manpage_files.c src/app/roff.c
LIB_SRC  = $(filter-out $(MAIN_SRC),$(wildcard src/*/*.c))
LIB_OBJ  = $(patsubst src/%.c,$(B)/%.o,$(LIB_SRC))

# The man pages, dated by the last commit (empty outside git)
MANPAGES = hopbench.1 hopbench-topology.5
MAN_DATE ?= $(shell git log -1 --format=%cd --date=short 2>/dev/null)

# Debian packages: to build and run, and what the tests use on top
DEBS       = gcc make pkg-config libzmq3-dev libczmq-dev libnuma-dev \
             libaudit-dev libjansson-dev
CHECK_DEBS = perl jq procps iproute2 gnuplot-nox groff man-db openssh-server \
             openssh-client dpkg binutils systemd chromium dpkg-dev lintian \
             devscripts python3
# make run: what README's tour uses on top (plot draws with gnuplot, the
# man pages are read with man -l, the tour's test is Perl's)
RUN_DEBS   = gnuplot-nox man-db perl
# make deb: dpkg-deb, dpkg-buildflags and dpkg-shlibdeps, strip
DEB_DEBS   = dpkg dpkg-dev binutils
MEMCHECK_DEBS = valgrind
FUZZ_DEBS  = clang libclang-rt-14-dev
# make anchors: apt-get source needs dpkg-dev; the perf tools are C++
ANCHORS_DEBS = perl g++ dpkg-dev gnuplot-nox

# Fuzzing: the parsers under libFuzzer, ASan and UBSan, with clang.  The
# project's objects are built again, instrumented, in build/fuzz/.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS   = $(filter-out $(OPT) -fsanitize=%,$(CFLAGS)) -g -O1 -Isrc \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS  = topology lists machine shape
FUZZ_BINS     = $(FUZZ_TARGETS:%=tests/fuzz/fuzz_%)
FUZZ_OBJ      = $(LIB_SRC:src/%.c=build/fuzz/%.o) build/fuzz/fuzz.o
# The same targets built to replay inputs, not to fuzz (tests/50-fuzz-
# regressions.t runs each on tests/fuzz/regressions/): ASan and UBSan
# without the fuzzer's coverage, unoptimized and without debug data, in
# build/fuzz-replay/ (the fuzzing build's compile takes 3 times the CPU),
# and only the layers the targets include (pipeline/ and those below it,
# docs/ARCHITECTURE.md), a third of src/
REPLAY_LAYERS = base config machine pipeline
REPLAY_CFLAGS = $(filter-out $(OPT) -fsanitize=%,$(CFLAGS)) -O0 -Isrc \
                -fsanitize=address,undefined -fno-sanitize-recover=all
REPLAY_BINS   = $(FUZZ_TARGETS:%=build/fuzz-replay/fuzz_%)
REPLAY_OBJ    = $(patsubst src/%.c,build/fuzz-replay/%.o,\
                    $(filter $(REPLAY_LAYERS:%=src/%/%),$(LIB_SRC))) \
                build/fuzz-replay/fuzz.o

.PHONY: all run check check-long lint bench anchors install deb deb-package deps check-deps memcheck \
        clean format fuzz fuzz-deps fuzz-build fuzz-replay soak soak-handover FORCE

all: hopbench $(MANPAGES)

# The flags this flavour was built with: rewritten only when they change
$(B)/flags: FORCE
	@mkdir -p $(B)
	@echo '$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(LDLIBS)' | cmp -s - $@ || \
	    echo '$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(LDLIBS)' >$@

# Which flavour ./hopbench and tests/selftest are: rewritten on a switch
build/flavour: FORCE
	@mkdir -p build
	@echo $(FLAVOUR) | cmp -s - $@ || echo $(FLAVOUR) >$@

$(B)/%.o: src/%.c $(B)/flags
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/hopbench: $(LIB_OBJ) $(B)/app/main.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/selftest: $(LIB_OBJ) $(B)/app/roff.o $(B)/app/selftest.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/manpage: $(LIB_OBJ) $(B)/app/roff.o $(B)/app/manpage.o \
              $(B)/app/manpage_files.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

hopbench.1: $(B)/manpage
	$< 1 '$(MAN_DATE)' >$@.tmp && mv $@.tmp $@

hopbench-topology.5: $(B)/manpage
	$< 5 '$(MAN_DATE)' >$@.tmp && mv $@.tmp $@

# copied, then renamed: a hopbench that is running keeps its file
hopbench: $(B)/hopbench build/flavour
	cp $< $@.tmp && mv -f $@.tmp $@

tests/selftest: $(B)/selftest build/flavour
	cp $< $@.tmp && mv -f $@.tmp $@

# the raw libzmq baseline of make bench: libzmq only, no czmq
tests/bench/raw: tests/bench/raw.c tests/bench/raw_work.h
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(shell pkg-config --libs libzmq) -lpthread


deps:
	@tests/install-debs $(DEBS)

check-deps: deps
	@tests/install-debs $(CHECK_DEBS)

run: deps
	@tests/install-debs $(RUN_DEBS)
	$(MAKE) hopbench $(MANPAGES)
	./hopbench run topologies/proxy.cfg --sizes 64,1024,16384 --duration 0.5 \
	    --report

# Test files run three at a time on two CPUs: a file keeps them about
# half busy (windows, handshakes, drains, timeouts it waits out), so
# those that wait run beside those that compute; every test holds beside
# a CPU hog (the files beside it are one); CHECK_JOBS=1 runs them one by
# one.  The longest files start first (CHECK_FIRST, longest first, as
# measured on a fresh clone: 76-deb compiles the hardened build), so
# that none starts near the end and runs there alone; the rest follow by
# name.  The build before them runs CHECK_JOBS compilers too, unless make
# was given its own -j.  Each file's line says its wall time (--timer),
# which is what CHECK_FIRST is ordered by
CHECK_JOBS ?= 3
CHECK_FIRST = 76-deb 35-size 75-host-faults 74-hosts 23-flood 23-modes \
              77-host-faults-timing 29-truth 25-trees 36-size-session \
              50-fuzz-regressions 41-report 31-stalled 72-zones 14-columns \
              11-tour 26-syscalls 28-reuse-strays 27-topics 70-scale
CHECK_FILES = $(wildcard $(CHECK_FIRST:%=tests/%.t)) \
              $(filter-out $(CHECK_FIRST:%=tests/%.t),$(sort $(wildcard tests/*.t)))

check: check-deps
	$(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) \
	    hopbench tests/selftest tests/bench/raw $(MANPAGES)
ifeq ($(SANITIZE),1)
	@ldd hopbench | grep -q libasan && ldd tests/selftest | grep -q libasan || \
	    { echo 'hopbench: ./hopbench is not the sanitized build' >&2; exit 1; }
endif
	tests/prove-clean --timer -j$(CHECK_JOBS) $(CHECK_FILES)

# make check, and the slow cases the tests keep for it (tests/lib/
# Hopbench.pm's long(): every shipped topology's search, more repeats).
# Not run by CI
check-long:
	HOPBENCH_LONG=1 $(MAKE) check

# the layers of src/ against docs/ARCHITECTURE.md (tests/18-layers.t too)
lint:
	@tests/install-debs perl
	tests/lint-layers

bench: deps
	@tests/install-debs perl
	$(MAKE) hopbench tests/bench/raw
	tests/bench/run-bench
	[ "$(BENCH_SEARCH)" = 0 ] || tests/bench/search-time

# libzmq's perf tools from the installed version's Debian source, in
# build/anchors/ (tests/anchors/build-tools), then side by side with
# hopbench (tests/anchors/run-anchors; knobs ANCHORS_*).  Not run by CI.
anchors: deps
	@tests/install-debs $(ANCHORS_DEBS)
	$(MAKE) hopbench
	tests/anchors/build-tools build/anchors
	tests/anchors/run-anchors

fuzz-deps:
	@tests/install-debs $(FUZZ_DEBS)

fuzz: fuzz-deps
	$(MAKE) fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_OBJ) $(FUZZ_TARGETS:%=build/fuzz/fuzz_%.o)

build/fuzz/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

build/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

tests/fuzz/fuzz_%: build/fuzz/fuzz_%.o $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(LDLIBS)

fuzz-replay: $(REPLAY_BINS)
.SECONDARY: $(REPLAY_OBJ) $(FUZZ_TARGETS:%=build/fuzz-replay/fuzz_%.o)

build/fuzz-replay/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(REPLAY_CFLAGS) -c -o $@ $<

build/fuzz-replay/%.o: tests/fuzz/%.c
	@mkdir -p build/fuzz-replay
	$(FUZZ_CC) $(REPLAY_CFLAGS) -c -o $@ $<

# libFuzzer's main runs the inputs named on its command line
build/fuzz-replay/fuzz_%: build/fuzz-replay/fuzz_%.o $(REPLAY_OBJ)
	$(FUZZ_CC) $(REPLAY_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# Soak: a long mixed sweep of every topology, one hopbench process each,
# sampled after every trial (tests/soak/run says how it judges growth).
# SOAK_MODES is the one list of modes swept where a topology takes them.
SOAK_SECONDS ?= 600
SOAK_MODES   ?= capacity flood search

soak: deps
	@tests/install-debs perl procps
	$(MAKE) hopbench
	SOAK_MODES='$(SOAK_MODES)' tests/soak/run $(SOAK_SECONDS)

# Healthy runs across agents that have just changed controllers (a killed
# controller, two racing), hosts as network namespaces: none may fail.
# HANDOVER_RUNS of them (tests/soak/handover).  Root; not run by CI
HANDOVER_RUNS ?= 200

soak-handover: deps
	@tests/install-debs perl iproute2
	$(MAKE) hopbench
	tests/soak/handover $(HANDOVER_RUNS)

# valgrind cannot run an ASan binary: memcheck always uses the normal build
memcheck: deps
	@tests/install-debs $(MEMCHECK_DEBS)
ifeq ($(SANITIZE),1)
	$(error memcheck runs the normal build: make memcheck, without SANITIZE=1)
endif
	$(MAKE) hopbench
	tests/memcheck

# INSTALL_BIN: the binary installed (make deb gives the flavour's own, so
# that it never replaces ./hopbench)
INSTALL_BIN ?= hopbench
install: $(INSTALL_BIN) $(MANPAGES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/hopbench \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/hopbench
	install -m 644 hopbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/hopbench.1
	install -m 644 hopbench-topology.5 \
	    $(DESTDIR)$(PREFIX)/share/man/man5/hopbench-topology.5
	cp -r topologies numa $(DESTDIR)$(PREFIX)/share/hopbench/

# The Debian package: the hardened flavour's binary, make install into a
# staging tree, then packaging/deb/build adds the unit, the conffile, the
# maintainer scripts, the docs and control (Depends from dpkg-shlibdeps).
# DEB_VERSION: the package's version (the program's, by default).  The
# package is always the hardened build, also when make check SANITIZE=1
# runs its test (SANITIZE= overrides what MAKEFLAGS passes down)
DEB_DIR ?= build/deb
DEB_VERSION ?= $(VERSION)
deb:
	@tests/install-debs $(DEB_DEBS)
	$(MAKE) --no-print-directory SANITIZE= HARDEN=1 deb-package

deb-package: $(B)/hopbench $(MANPAGES)
	rm -rf $(DEB_DIR)/debian
	$(MAKE) --no-print-directory install \
	    DESTDIR=$(abspath $(DEB_DIR))/debian/hopbench \
	    PREFIX=/usr INSTALL_BIN=$(B)/hopbench
	packaging/deb/build $(DEB_DIR) $(DEB_VERSION)

format:
	clang-format -i src/*/*.c src/*/*.h tests/bench/*.c tests/fuzz/*.c tests/fuzz/*.h

clean:
	rm -rf hopbench tests/selftest tests/bench/raw tests/bench/*.d build \
	    $(MANPAGES) $(MANPAGES:%=%.tmp) \
	    $(FUZZ_BINS)

-include $(wildcard $(B)/*/*.d tests/bench/*.d build/fuzz/*.d build/fuzz/*/*.d \
    build/fuzz-replay/*.d build/fuzz-replay/*/*.d)
