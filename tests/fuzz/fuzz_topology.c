/*  fuzz_topology: libFuzzer target for topology files.

    The input is a topology file, and it goes the way `hopbench check FILE`
    takes it: topology_load_text, the --set overrides, topology_validate,
    pipeline_new (expansion and placement, on this machine and on a
    described 2-socket Xeon); then topology_save, as a run writes
    config.cfg.  Lines "#set KEY=VALUE" at column 0 are comments to ZPL;
    here they are also --set overrides, applied in order (at most 8), and
    tests/50-fuzz-regressions.t hands them to hopbench check the same way.

    Properties, beyond the sanitizers:
    - zconfig refuses nothing that zpl's own line checks let through (when
      it does, it prints on stdout and the error has no line number);
    - the effective config loads back, validates, and saves to the same
      text (DESIGN: config.cfg is a topology hopbench check accepts);
    - an error found after loading (validation, the plan) starts with
      where: the file's path and line, or the --set that caused it.

    Its corpus is seeded with big inputs too (tests/fuzz/seeds: long
    chains, wide fan-outs, many --set lines, deep nesting), and
    fuzz_shape builds such files from a few bytes.
*/
#include "fuzz.h"
#include "pipeline/pipeline.h"
#include "config/topology.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SETS 8
#define SET_MARK "#set "

//  The "#set KEY=VALUE" lines, in order; -1 at the first one refused
static int s_apply_sets(topology_t *topo, const char *text)
{
    const size_t mark = strlen(SET_MARK);
    int n = 0, rc = 0;
    for (const char *line = text; line && rc == 0 && n < MAX_SETS;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len >= mark && strncmp(line, SET_MARK, mark) == 0) {
            char *assignment = strndup(line + mark, len - mark);
            errbuf_t err;
            rc = topology_set(topo, assignment, &err);
            free(assignment);
            n++;
        }
        line = end ? end + 1 : NULL;
    }
    return rc;
}

//  Expand and place, as check and plan do, on both machines
static void s_plan(const topology_t *topo, const char *input)
{
    const machine_t *machines[] = {fuzz_live(), fuzz_xeon()};
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) {
        errbuf_t err;
        pipeline_t *pl = pipeline_new(topo, machines[i], &err);
        if (!pl)
            fuzz_check_where(input, topo->path, err.msg);
        pipeline_destroy(&pl);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1;
    errbuf_t err = {0};
    topology_t *topo = topology_load_text("fuzz.cfg", text, &err);
    if (!topo)
        fuzz_check_refusal(text, "fuzz.cfg", err.msg);
    if (topo && s_apply_sets(topo, text) == 0) {
        if (topology_validate(topo, &err) == 0) {
            s_plan(topo, text);
            fuzz_check_saved(topo, text);
        } else
            fuzz_check_where(text, topo->path, err.msg);
    }
    topology_destroy(&topo);
    free(text);
    return 0;
}
