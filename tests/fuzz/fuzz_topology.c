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
      text (DESIGN: config.cfg is a topology hopbench check accepts).
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

//  The effective config as a run writes it
static char *s_save(const topology_t *topo)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    topology_save(topo, out);
    fclose(out);
    return text;
}

static void s_check_saved(const topology_t *topo, const char *input)
{
    errbuf_t err = {{0}};
    char *saved = s_save(topo);
    topology_t *again = topology_load_text(topo->path, saved, &err);
    if (!again || topology_validate(again, &err))
        fuzz_fail(input, "the saved config does not load back: %s\n%s", err.msg,
                  saved);
    char *resaved = s_save(again);
    if (strcmp(saved, resaved))
        fuzz_fail(input,
                  "the saved config changes when saved again:\n%s---\n%s",
                  saved, resaved);
    free(resaved);
    free(saved);
    topology_destroy(&again);
}

//  Expand and place, as check and plan do, on both machines
static void s_plan(const topology_t *topo)
{
    const machine_t *machines[] = {fuzz_live(), fuzz_xeon()};
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) {
        errbuf_t err;
        pipeline_t *pl = pipeline_new(topo, machines[i], &err);
        pipeline_destroy(&pl);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1;
    errbuf_t err = {{0}};
    topology_t *topo = topology_load_text("fuzz.cfg", text, &err);
    if (!topo)
        fuzz_check_refusal(text, "fuzz.cfg", err.msg);
    if (topo && s_apply_sets(topo, text) == 0 &&
        topology_validate(topo, &err) == 0) {
        s_plan(topo);
        s_check_saved(topo, text);
    }
    topology_destroy(&topo);
    free(text);
    return 0;
}
