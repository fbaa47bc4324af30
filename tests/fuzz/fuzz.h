/*  fuzz: what the libFuzzer targets in tests/fuzz share.

    Each target is one fuzz_NAME.c with LLVMFuzzerTestOneInput, linked with
    fuzz.c and the project's own objects (src/ without main.c and
    selftest.c) by `make fuzz`, under ASan and UBSan.  libFuzzer gives no
    context pointer, so what a target sets up once (czmq, the machines)
    lives in statics here: harness state, not hopbench's.

    hopbench reads every file as a C string (zpl_load refuses a NUL byte),
    so an input with a NUL is refused (-1: libFuzzer keeps it out of the
    corpus).  A broken property is fuzz_fail: message, then abort(), which
    libFuzzer records as a crash like any sanitizer report.
*/
#ifndef HOPBENCH_FUZZ_H
#define HOPBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/topology.h"
#include "machine/machine.h"

//  libFuzzer's entry points; fuzz.c has the one-time setup (czmq without
//  signal handlers and logging to stderr, the machines below)
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

//  The input as a malloc'd C string; NULL if it holds a NUL byte
char *fuzz_text(const uint8_t *data, size_t size);
//  Machines to plan on: a described 2-socket Xeon (56 CPUs), this one
const machine_t *fuzz_xeon(void);
const machine_t *fuzz_live(void);
//  A stream to /dev/null, for printers
FILE *fuzz_null(void);
//  Loading path failed with msg: zpl's line checks must have refused the
//  input, not zconfig (whose refusal is "PATH: not valid ZPL", and noise
//  on stdout)
void fuzz_check_refusal(const char *input, const char *path, const char *msg);
//  A topology that loaded and validated: its effective config (what a
//  run writes as config.cfg) loads back, validates and saves the same
void fuzz_check_saved(const topology_t *topo, const char *input);
//  An error found after loading names where (DESIGN: every error at its
//  line): msg starts with the file's path, a --set or a --sweep
void fuzz_check_where(const char *input, const char *path, const char *msg);
//  A property does not hold: say which, show the input, abort
void fuzz_fail(const char *input, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

#endif
