/*  io_cpus: the io_cpus key, applied to a placement (see io_cpus.h).

    A list is parsed against the machine, as a stage's cpus are, and must
    lie inside this process's CPU set; 'stage' needs a stage thread with
    CPUs of its own (cpus, node or a placement policy gives it some).
    Pure: no libnuma, no I/O.
*/
#include "machine/io_cpus.h"

#include "base/check.h"

#include <string.h>

static bool s_is(const char *value, const char *word)
{
    return value && strcmp(value, word) == 0;
}

static int s_place_one(const machine_t *machine, const place_request_t *request,
                       place_t *place, errbuf_t *err)
{
    const char *value = request->io_cpus, *at = request->at_io_cpus;
    const char *name = request->name ? request->name : "(unnamed stage)";
    at = at ? at : "";
    if (!value || !*value || s_is(value, "node"))
        return 0;
    if (s_is(value, "stage")) {
        if (cpuset_empty(&place->cpus))
            return err_set(err,
                           "%s%s: io_cpus = stage, but the stage thread is "
                           "not pinned (give it cpus or node, or a "
                           "placement)",
                           at, name);
        place->io_cpus = place->cpus;
        return 0;
    }
    cpuset_t cpus;
    errbuf_t why;
    if (machine_parse_cpus(machine, value, &cpus, &why))
        return err_set(err, "%s%s: io_cpus: %s (or node, or stage)", at, name,
                       why.msg);
    if (placement_outside(machine, &cpus, at, name, "io_cpus", value, err))
        return -1;
    place->io_cpus = cpus;
    return 0;
}

int io_cpus_place(const machine_t *machine, const place_request_t *requests,
                  int n, place_t *out, errbuf_t *err)
{
    for (int i = 0; i < n; i++)
        if (s_place_one(machine, &requests[i], &out[i], err))
            return -1;
    return 0;
}

//  ---------------------------------------------------------------------
//  Selftest

int io_cpus_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    machine_t *vm = machine_new_file("numa/vm-2x2.cfg", &err);
    CHECK(vm);
    place_request_t req[3] = {
        {.name = "pub", .stage = 0, .distance = 0, .node = -1},
        {.name = "p", .stage = 1, .distance = 1, .node = -1},
        {.name = "sub", .stage = 2, .distance = 2, .node = -1}};
    place_options_t spread = {PLACEMENT_SPREAD, false, NULL};
    place_t out[3];
    CHECK(placement_plan(vm, &spread, req, 3, out, &err) == 0);
    cpuset_t node0 = out[0].io_cpus;
    req[0].io_cpus = "stage";
    req[1].io_cpus = "3";
    req[2].io_cpus = "node";
    CHECK(io_cpus_place(vm, req, 3, out, &err) == 0);
    CHECK(memcmp(&out[0].io_cpus, &out[0].cpus, sizeof(cpuset_t)) == 0);
    CHECK(cpuset_count(&out[0].io_cpus) == 1);
    CHECK(cpuset_count(&out[1].io_cpus) == 1 && cpuset_has(&out[1].io_cpus, 3));
    CHECK(cpuset_count(&out[2].io_cpus) == 2);
    CHECK(cpuset_count(&node0) == 2);
    //  not pinned: 'stage' has nothing to follow; a list still applies
    place_options_t none = {PLACEMENT_NONE, false, NULL};
    CHECK(placement_plan(vm, &none, req, 3, out, &err) == 0);
    req[0].at_io_cpus = "t.cfg:4: ";
    CHECK(io_cpus_place(vm, req, 3, out, &err) == -1);
    CHECK(strcmp(err.msg, "t.cfg:4: pub: io_cpus = stage, but the stage "
                          "thread is not pinned (give it cpus or node, or a "
                          "placement)") == 0);
    req[0].io_cpus = "1-2";
    CHECK(io_cpus_place(vm, req, 3, out, &err) == 0);
    CHECK(cpuset_count(&out[0].io_cpus) == 2 && cpuset_empty(&out[0].cpus));
    req[0].io_cpus = "9";
    CHECK(io_cpus_place(vm, req, 3, out, &err) == -1);
    CHECK(strncmp(err.msg,
                  "t.cfg:4: pub: io_cpus: cpus '9': CPU 9 does not "
                  "exist",
                  47) == 0);
    req[0].io_cpus = "stag";
    CHECK(io_cpus_place(vm, req, 3, out, &err) == -1);
    CHECK(strstr(err.msg, "(or node, or stage)"));
    cpuset_t some;
    cpuset_clear(&some);
    cpuset_add(&some, 0);
    machine_restrict(vm, &some);
    req[0].io_cpus = "0-1";
    CHECK(io_cpus_place(vm, req, 3, out, &err) == -1);
    CHECK(strstr(err.msg, "io_cpus '0-1': CPU 1 is outside this process's "
                          "CPU set 0"));
    machine_destroy(&vm);
    return 0;
}
