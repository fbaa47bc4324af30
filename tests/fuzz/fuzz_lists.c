/*  fuzz_lists: libFuzzer target for the value parsers.

    The input is one value, as it would follow "=" in a topology file or
    "--set KEY=": sizes_parse; cpuset_parse against a 56-CPU universe;
    machine_parse_cpus for the described Xeon and for this machine
    (libnuma's parser behind our lint); params_set for every key.  It is
    also tried whole as an assignment, topology_set on a small pipeline.

    Property, beyond the sanitizers: what parses, formats back to text
    that parses to the same value (config.cfg is written with
    params_format, plans print cpuset_format).
*/
#include "machine/cpuset.h"
#include "fuzz.h"
#include "config/params.h"
#include "config/sizes.h"
#include "config/topology.h"

#include <stdlib.h>
#include <string.h>

#define UNIVERSE_CPUS 56

static void s_sizes(const char *text)
{
    sizes_t first, again;
    errbuf_t err = {0};
    char buf[1024];
    if (sizes_parse(text, &first, &err))
        return;
    sizes_format(&first, buf, sizeof buf);
    if (sizes_parse(buf, &again, &err) || again.n != first.n ||
        memcmp(again.size, first.size, sizeof first.size[0] * first.n))
        fuzz_fail(text, "sizes format as '%s', which reads back differently %s",
                  buf, err.msg);
}

static void s_cpuset(const char *text)
{
    static cpuset_t universe;
    cpuset_t first, again;
    errbuf_t err = {0};
    char buf[4096];
    if (cpuset_empty(&universe))
        for (int cpu = 0; cpu < UNIVERSE_CPUS; cpu++)
            cpuset_add(&universe, cpu);
    if (cpuset_parse(text, &universe, &first, &err) || cpuset_empty(&first))
        return;
    if (!cpuset_subset(&first, &universe))
        fuzz_fail(text, "cpuset_parse went outside its universe");
    cpuset_format(&first, buf, sizeof buf);
    if (cpuset_parse(buf, &universe, &again, &err) ||
        memcmp(&first, &again, sizeof first))
        fuzz_fail(text, "cpus format as '%s', which reads back differently %s",
                  buf, err.msg);
}

//  CPU lists users type in cpus = ..., for a described and a live machine
static void s_machine_cpus(const char *text)
{
    const machine_t *machines[] = {fuzz_xeon(), fuzz_live()};
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) {
        cpuset_t cpus;
        errbuf_t err;
        if (machine_parse_cpus(machines[i], text, &cpus, &err) == 0 &&
            (cpuset_empty(&cpus) || !cpuset_subset(&cpus, &machines[i]->cpus)))
            fuzz_fail(text, "machine_parse_cpus accepted CPUs %s lacks",
                      machines[i]->name);
    }
}

static void s_params(const char *text)
{
    static params_t defaults;
    static bool ready;
    if (!ready)
        params_defaults(&defaults), ready = true;
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        const option_t *opt = &params_options[k];
        params_t first = defaults, again = defaults;
        errbuf_t err = {0};
        char buf[1024], rebuf[1024];
        if (params_set(&first, opt, text, &err))
            continue;
        params_format(&first, opt, buf, sizeof buf);
        if (params_set(&again, opt, buf, &err))
            fuzz_fail(text, "%s formats as '%s', which is refused: %s",
                      opt->name, buf, err.msg);
        params_format(&again, opt, rebuf, sizeof rebuf);
        if (strcmp(buf, rebuf))
            fuzz_fail(text, "%s formats as '%s', then as '%s'", opt->name, buf,
                      rebuf);
    }
}

//  The whole input as a --set assignment on a small pipeline
static void s_assignment(const char *text)
{
    static topology_t *pipeline;
    errbuf_t err;
    if (!pipeline)
        pipeline = topology_load_text("fuzz.cfg",
                                      "topology = t\n"
                                      "publisher = pub\n"
                                      "hop = ipc\n"
                                      "proxy = p1\n"
                                      "hop\n"
                                      "subscriber = sub\n"
                                      "    count = 2\n",
                                      &err);
    if (!pipeline)
        fuzz_fail(text, "the fixed pipeline does not load: %s", err.msg);
    topology_t *scratch = topology_dup(pipeline);
    if (!scratch)
        fuzz_fail(text, "topology_dup: out of memory");
    if (topology_set(scratch, text, &err) == 0)
        topology_validate(scratch, &err);
    topology_destroy(&scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1;
    s_sizes(text);
    s_cpuset(text);
    s_machine_cpus(text);
    s_params(text);
    s_assignment(text);
    free(text);
    return 0;
}
