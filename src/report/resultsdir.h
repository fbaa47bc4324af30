/*  resultsdir: where a run's files go, and the metadata that says what
    produced them (versions, kernel, CPU, NUMA nodes and distances,
    command line, times, status, warnings).

        results/20261130T072109Z-proxy/
            results.csv   threads.csv   config.cfg   metadata.json

    Also the run's private directory for ipc endpoints (mode 0700, under
    $TMPDIR or /tmp), removed with everything in it when the run ends.
*/
#ifndef HOPBENCH_RESULTSDIR_H
#define HOPBENCH_RESULTSDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "base/limits.h"
#include "machine/machine.h"

//  A host of the run (host = NAME), as its agent described itself
typedef struct {
    char name[LIMIT_NAME + 1];
    char agent[LIMIT_ENDPOINT + 1]; //  tcp://ADDR:PORT
    char hopbench[32], libzmq[16], czmq[16];
    char hostname[64], kernel[128], cpu_model[128];
    int protocol, numa_nodes;
    //  its clock minus the controller's (CLOCK_MONOTONIC), estimated on
    //  the control channel, and that estimate's uncertainty (half the
    //  best round trip)
    double clock_offset_ns, clock_uncertainty_ns;
} run_host_t;

typedef struct {
    char command_line[2048];
    char started[32]; //  UTC, ISO 8601
    char topology[64];
    char file[256];
    char status[16]; //  running, ok, failed, interrupted, stalled
    char error[ERRBUF_MAX + 1];
    char warnings[4096]; //  whole lines (base/lines.h)
    //  the encrypted hops, "hop1 hop2": room for every hop
    char curve[(LIMIT_STAGES - 1) * 8];
    //  "transport=inproc,ipc,tcp hwm=10,1000": room for every swept value
    char sweep[LIMIT_SWEEP_KEYS *
               (LIMIT_SWEEP_KEY + 2 +
                LIMIT_SWEEP_VALUES * (LIMIT_SWEEP_VALUE + 1))];
    char mode[64];       //  pubsub: "capacity", or every mode swept
    double tsc_hz;       //  the TSC's rate (flood's hwm_bound), 0: unknown
    char tsc_source[32]; //  where that came from
    int nhosts;          //  the hosts stages name, one entry each
    run_host_t *hosts;   //  (resultsdir_meta_free lets them go)
    //  "published": a JSON array, an object per trial whose rows
    //  results.csv has, what each publisher instance sent (NULL: none
    //  yet); resultsdir_meta_free lets it go
    struct json_t *published;
} run_meta_t;

//  Make the directory (and its parents); path NULL: results/<UTC>-<name>
int resultsdir_create(const char *path, const char *name, char *out, size_t len,
                      errbuf_t *err);
//  Write (or rewrite) metadata.json in dir
int resultsdir_metadata(const char *dir, const run_meta_t *meta,
                        const machine_t *machine, errbuf_t *err);
//  "published"'s entry of a trial appended: its size, repeat, sweep
//  values and each origin's count (names[o], sent[o]); -1 out of memory
int resultsdir_published(run_meta_t *meta, unsigned size, int repeat,
                         int nsweep, const char *const *keys,
                         const char *const *values, int norigins,
                         const char *const *names, const uint64_t *sent);
//  What meta holds on the heap, let go
void resultsdir_meta_free(run_meta_t *meta);
//  A private 0700 directory for ipc endpoints
int resultsdir_ipc_create(char *out, size_t len, errbuf_t *err);
//  Remove it and every socket file in it
void resultsdir_ipc_remove(const char *dir);
//  Now, UTC: "2026-11-30T07:21:09Z" (compact: "20261130T072109Z")
void resultsdir_utc(char *out, size_t len, bool compact);

#endif
