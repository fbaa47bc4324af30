# hopbench: build, run, check, bench, install.
#
#   make            build ./hopbench
#   make run        install missing Debian packages, build, run a short sweep
#   make check      selftests and end-to-end tests (prove)
#   make bench      hopbench against raw libzmq loops, results/bench.csv
#   make fuzz       libFuzzer on the parsers for FUZZ_SECONDS (tests/fuzz)
#   make install    PREFIX=/usr/local DESTDIR=

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
PKGS     = libzmq libczmq numa
OPT     ?= -O2 -g
CFLAGS  += $(OPT) -std=gnu11 -Wall -Wextra -pthread -MMD -MP
CFLAGS  += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
VERSION  = 0.1.0
CFLAGS  += -DHOPBENCH_VERSION='"$(VERSION)"'

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

LIB_SRC  = $(filter-out src/main.c src/selftest.c,$(wildcard src/*.c))
LIB_OBJ  = $(LIB_SRC:.c=.o)

# Debian packages: to build and run, and what the tests use on top
DEBS       = gcc make pkg-config libzmq3-dev libczmq-dev libnuma-dev
CHECK_DEBS = perl jq procps iproute2 gnuplot-nox
FUZZ_DEBS  = clang libclang-rt-14-dev

# Fuzzing: the parsers under libFuzzer, ASan and UBSan, with clang.  The
# project's objects are built again, instrumented, in build/fuzz/.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS   = $(filter-out $(OPT) -fsanitize=%,$(CFLAGS)) -g -O1 -Isrc \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS  = topology lists machine
FUZZ_BINS     = $(FUZZ_TARGETS:%=tests/fuzz/fuzz_%)
FUZZ_OBJ      = $(LIB_SRC:src/%.c=build/fuzz/%.o) build/fuzz/fuzz.o

.PHONY: all run check bench install deps check-deps clean format fuzz \
        fuzz-deps fuzz-build

all: hopbench

hopbench: $(LIB_OBJ) src/main.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

tests/selftest: $(LIB_OBJ) src/selftest.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# the raw libzmq baseline of make bench: libzmq only, no czmq
tests/bench/raw: tests/bench/raw.c
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(shell pkg-config --libs libzmq) -lpthread

deps:
	@tests/install-debs $(DEBS)

check-deps: deps
	@tests/install-debs $(CHECK_DEBS)

run: deps
	$(MAKE) hopbench
	./hopbench run topologies/proxy.cfg --sizes 64,1024,16384 --duration 0.5

check: check-deps
	$(MAKE) hopbench tests/selftest
	prove tests/*.t

bench: deps
	@tests/install-debs perl
	$(MAKE) hopbench tests/bench/raw
	tests/bench/run-bench

fuzz-deps:
	@tests/install-debs $(FUZZ_DEBS)

fuzz: fuzz-deps
	$(MAKE) fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_OBJ) $(FUZZ_TARGETS:%=build/fuzz/fuzz_%.o)

build/fuzz/%.o: src/%.c
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

build/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

tests/fuzz/fuzz_%: build/fuzz/fuzz_%.o $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(LDLIBS)

install: hopbench
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/hopbench
	install -m 755 hopbench $(DESTDIR)$(PREFIX)/bin/hopbench
	cp -r topologies numa $(DESTDIR)$(PREFIX)/share/hopbench/

format:
	clang-format -i src/*.c src/*.h tests/bench/*.c

clean:
	rm -f hopbench tests/selftest tests/bench/raw src/*.o src/*.d tests/bench/*.d $(FUZZ_BINS)
	rm -rf build/fuzz build/fuzz-run

-include $(wildcard src/*.d tests/bench/*.d build/fuzz/*.d)
