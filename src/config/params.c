/*  params: the table of topology keys, and reading/writing their values.

    Options are data (as in fio's options.c): adding a key is one row here,
    one field in params_t and one enum value.  Values are parsed strictly:
    numbers must be whole numbers in range, booleans true/false (also
    1/0, yes/no, on/off), enums one of their names.
*/
#include "config/params.h"

#include "base/check.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const params_pattern_names[] = {"pubsub", "pushpull", "reqrep",
                                            "connect", NULL};
const char *const params_transport_names[] = {"inproc", "ipc", "tcp", NULL};
const char *const params_engine_names[] = {"steerable", "zproxy", "forwarder",
                                           NULL};
const char *const params_process_names[] = {"thread", "own", NULL};
const char *const params_placement_names[] = {"none", "compact", "spread",
                                              "split", NULL};

#define T         LEVEL_TOPOLOGY
#define S         LEVEL_STAGE
#define H         LEVEL_HOP
#define AT(field) offsetof(params_t, field)

const option_t params_options[KEY_COUNT_OF_KEYS] = {
    [KEY_PATTERN] =
        {"pattern", T, TYPE_ENUM, AT(pattern), 0, params_pattern_names, 0, 0,
         "pubsub",
         "what flows: pubsub (PUB/XSUB-XPUB/SUB), pushpull, reqrep, "
         "connect; stage names must match it"},
    [KEY_SIZES] = {"sizes", T, TYPE_SIZES, AT(sizes), 0, NULL, 0, 0,
                   "8..131072",
                   "message sizes in bytes: 8..131072 (doubling) or "
                   "64,1024,65536; K and M suffixes"},
    [KEY_MESSAGES] = {"messages", T, TYPE_U64, AT(messages), 0, NULL, 0, 1e12,
                      "0",
                      "the window closes when every receiver of the last "
                      "stage has taken this many (reqrep: round trips, "
                      "default 5000); 0: use duration"},
    [KEY_DURATION] = {"duration", T, TYPE_DOUBLE, AT(duration), 0, NULL, 0.01,
                      3600, "1",
                      "measurement window in seconds (when messages = 0)"},
    [KEY_WARMUP] = {"warmup", T, TYPE_DOUBLE, AT(warmup), 0, NULL, 0, 600,
                    "0.2",
                    "seconds of traffic before the window opens (not "
                    "counted in msgs_per_sec)"},
    [KEY_REPEAT] = {"repeat", T, TYPE_INT, AT(repeat), 0, NULL, 1, LIMIT_REPEAT,
                    "1", "repetitions of each size (a fresh pipeline each)"},
    [KEY_TIMEOUT] = {"timeout", T, TYPE_DOUBLE, AT(timeout), 0, NULL, 0.5, 3600,
                     "10",
                     "seconds a stage may take to answer, or a hop to deliver "
                     "its first message, before the run fails"},
    [KEY_TRANSPORT] = {"transport", T | H, TYPE_ENUM, AT(transport), 0,
                       params_transport_names, 0, 0, "tcp",
                       "inproc, ipc or tcp; on the topology it is the default "
                       "for hops that name none ('hop = ipc' is short for a "
                       "hop with transport = ipc)"},
    [KEY_ENDPOINT] = {"endpoint", H, TYPE_STRING, AT(endpoint),
                      sizeof(((params_t *)0)->endpoint), NULL, 0, 0, "",
                      "the hop's endpoint, e.g. tcp://127.0.0.1:5555; empty: "
                      "127.0.0.1 on a free port, an ipc path in a private "
                      "directory, a unique inproc name"},
    [KEY_HWM] = {"hwm", T | H, TYPE_INT, AT(hwm), 0, NULL, 0, 1e9, "1000",
                 "high-water mark, messages, both ends of a hop (0: none); "
                 "subscriptions are not held to it"},
    [KEY_NODROP] = {"nodrop", T, TYPE_BOOL, AT(nodrop), 0, NULL, 0, 0, "false",
                    "ZMQ_XPUB_NODROP on publishers and proxy backends: "
                    "back-pressure instead of dropping at the HWM"},
    [KEY_PLACEMENT] = {"placement", T, TYPE_ENUM, AT(placement), 0,
                       params_placement_names, 0, 0, "none",
                       "none, compact, spread or split (README: NUMA)"},
    [KEY_SIBLINGS] = {"siblings", T, TYPE_BOOL, AT(siblings), 0, NULL, 0, 0,
                      "true",
                      "let stage threads share a core's SMT siblings when a "
                      "node runs out of free cores"},
    [KEY_IO_THREADS] = {"io_threads", T | S, TYPE_INT, AT(io_threads), 0, NULL,
                        1, LIMIT_IO_THREADS, "1",
                        "libzmq I/O threads of a stage's context"},
    [KEY_NODE] = {"node", S, TYPE_INT, AT(node), 0, NULL, -1, LIMIT_NODE_ID,
                  "-1", "NUMA node of the stage (-1: the placement decides)"},
    [KEY_CPUS] = {"cpus", S, TYPE_STRING, AT(cpus),
                  sizeof(((params_t *)0)->cpus), NULL, 0, 0, "",
                  "CPUs of the stage thread, numactl syntax (0-3,8); wins "
                  "over node and placement"},
    [KEY_COUNT] = {"count", S, TYPE_INT, AT(count), 0, NULL, 1, LIMIT_COUNT,
                   "1",
                   "instances of a publisher or subscriber stage (fan-in, "
                   "fan-out), named NAME.1 .. NAME.N"},
    [KEY_ENGINE] = {"engine", T | S, TYPE_ENUM, AT(engine), 0,
                    params_engine_names, 0, 0, "steerable",
                    "proxy engine: steerable (zmq_proxy_steerable), zproxy "
                    "(czmq's actor), forwarder (hopbench's batched loop)"},
    [KEY_RATE] = {"rate", T, TYPE_DOUBLE, AT(rate), 0, NULL, 0, 1e9, "0",
                  "messages per second per publisher (0: as fast as "
                  "possible)"},
    [KEY_ZEROCOPY] = {"zerocopy", T, TYPE_BOOL, AT(zerocopy), 0, NULL, 0, 0,
                      "false",
                      "publishers send with zmq_msg_init_data from a pool of "
                      "node-local buffers, reused after libzmq frees them"},
    [KEY_PROCESS] = {"process", S, TYPE_ENUM, AT(process), 0,
                     params_process_names, 0, 0, "thread",
                     "thread: the stage runs in hopbench's process; own: in "
                     "a process of its own (ps shows hopbench:NAME)"},
    [KEY_NETNS] = {"netns", S, TYPE_STRING, AT(netns),
                   sizeof(((params_t *)0)->netns), NULL, 0, 0, "",
                   "zone: a network namespace hopbench makes for the run "
                   "(root); tcp hops out of it cross a veth pair"},
    [KEY_CURVE] = {"curve", T | H, TYPE_BOOL, AT(curve), 0, NULL, 0, 0, "false",
                   "CURVE encryption on tcp hops: a server keypair per hop "
                   "made for the run, its clients given the server key"},
};
#undef T
#undef S
#undef H
#undef AT

const option_t *params_option(const char *name)
{
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if (strcmp(params_options[k].name, name) == 0)
            return &params_options[k];
    return NULL;
}

void params_defaults(params_t *params)
{
    memset(params, 0, sizeof *params);
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        int rc = params_set(params, &params_options[k],
                            params_options[k].fallback, NULL);
        (void)rc; //  defaults are valid by construction (params_test)
    }
    memset(params->set, 0, sizeof params->set);
    memset(params->line, 0, sizeof params->line);
}

static int s_enum(const option_t *opt, const char *value, int *out,
                  errbuf_t *err)
{
    char names[128] = "";
    for (int i = 0; opt->choices[i]; i++) {
        if (strcmp(opt->choices[i], value) == 0) {
            *out = i;
            return 0;
        }
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                 opt->choices[i]);
    }
    return err_set(err, "unknown %s '%s' (%s)", opt->name, value, names);
}

static int s_bool(const option_t *opt, const char *value, bool *out,
                  errbuf_t *err)
{
    static const char *const yes[] = {"true", "1", "yes", "on", NULL};
    static const char *const no[] = {"false", "0", "no", "off", NULL};
    for (int i = 0; yes[i]; i++)
        if (strcmp(value, yes[i]) == 0 || strcmp(value, no[i]) == 0) {
            *out = strcmp(value, yes[i]) == 0;
            return 0;
        }
    return err_set(err, "%s must be true or false, not '%s'", opt->name, value);
}

//  Decimal digits, with a minus sign if you like: no exponent, no hex
static bool s_digits(const char *value)
{
    value += *value == '-';
    return *value && strspn(value, "0123456789") == strlen(value);
}

static int s_number(const option_t *opt, const char *value, double *out,
                    errbuf_t *err)
{
    char *end;
    errno = 0;
    double number = strtod(value, &end);
    bool whole = opt->type != TYPE_DOUBLE;
    if (!*value || *end || errno || isspace((unsigned char)*value) ||
        !isfinite(number) || (whole && !s_digits(value)))
        return err_set(err, "%s must be %s, not '%s'", opt->name,
                       whole ? "a whole number" : "a number", value);
    if (number < opt->min || number > opt->max)
        return err_set(err, "%s must be between %g and %g, not '%s'", opt->name,
                       opt->min, opt->max, value);
    *out = number;
    return 0;
}

static int s_string(const option_t *opt, const char *value, char *out,
                    errbuf_t *err)
{
    if (strlen(value) >= opt->length)
        return err_set(err, "%s is longer than %zu characters", opt->name,
                       opt->length - 1);
    for (const char *p = value; *p; p++)
        if (!isgraph((unsigned char)*p))
            return err_set(err, "%s '%s' has a space or control character",
                           opt->name, value);
    //  ZPL has no escapes: config.cfg could not quote it
    if (strpbrk(value, "\"'"))
        return err_set(err, "%s '%s' has a quote character", opt->name, value);
    strcpy(out, value);
    return 0;
}

int params_set(params_t *params, const option_t *opt, const char *value,
               errbuf_t *err)
{
    void *field = (char *)params + opt->offset;
    double number = 0;
    switch (opt->type) {
    case TYPE_ENUM:
        if (s_enum(opt, value, field, err))
            return -1;
        break;
    case TYPE_BOOL:
        if (s_bool(opt, value, field, err))
            return -1;
        break;
    case TYPE_INT:
    case TYPE_U64:
    case TYPE_DOUBLE:
        if (s_number(opt, value, &number, err))
            return -1;
        if (opt->type == TYPE_INT)
            *(int *)field = (int)number;
        else if (opt->type == TYPE_U64)
            *(uint64_t *)field = (uint64_t)number;
        else
            *(double *)field = number;
        break;
    case TYPE_STRING:
        if (s_string(opt, value, field, err))
            return -1;
        break;
    case TYPE_SIZES:
        if (sizes_parse(value, field, err))
            return -1;
        break;
    }
    params->set[opt - params_options] = true;
    return 0;
}

void params_format(const params_t *params, const option_t *opt, char *buf,
                   size_t len)
{
    const void *field = (const char *)params + opt->offset;
    switch (opt->type) {
    case TYPE_ENUM:
        snprintf(buf, len, "%s", opt->choices[*(const int *)field]);
        break;
    case TYPE_BOOL:
        snprintf(buf, len, "%s", *(const bool *)field ? "true" : "false");
        break;
    case TYPE_INT:
        snprintf(buf, len, "%d", *(const int *)field);
        break;
    case TYPE_U64:
        snprintf(buf, len, "%llu",
                 (unsigned long long)*(const uint64_t *)field);
        break;
    case TYPE_DOUBLE:
        snprintf(buf, len, "%.10g", *(const double *)field);
        break;
    case TYPE_STRING:
        snprintf(buf, len, "%s", (const char *)field);
        break;
    case TYPE_SIZES:
        sizes_format(field, buf, len);
        break;
    }
}

void params_overlay(params_t *out, const params_t *outer, const params_t *inner)
{
    params_t merged = *outer;
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        if (!inner->set[k])
            continue;
        const option_t *opt = &params_options[k];
        size_t size = opt->type == TYPE_STRING   ? opt->length
                      : opt->type == TYPE_SIZES  ? sizeof(sizes_t)
                      : opt->type == TYPE_U64    ? sizeof(uint64_t)
                      : opt->type == TYPE_DOUBLE ? sizeof(double)
                      : opt->type == TYPE_BOOL   ? sizeof(bool)
                                                 : sizeof(int);
        memcpy((char *)&merged + opt->offset, (const char *)inner + opt->offset,
               size);
        merged.set[k] = true;
        merged.line[k] = inner->line[k];
    }
    *out = merged;
}

const char *params_levels_text(unsigned levels)
{
    static const char *const text[] = {
        "",    "topology",      "stage",      "topology, stage",
        "hop", "topology, hop", "stage, hop", "topology, stage, hop"};
    return text[levels & 7];
}

void params_print_reference(FILE *out)
{
    fprintf(out, "%-11s %-21s %-10s %s\n", "key", "where", "default",
            "meaning");
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        const option_t *opt = &params_options[k];
        fprintf(out, "%-11s %-21s %-10s %s\n", opt->name,
                params_levels_text(opt->levels),
                *opt->fallback ? opt->fallback : "\"\"", opt->help);
    }
}

int params_test(bool verbose)
{
    (void)verbose;
    params_t params;
    errbuf_t err;
    char buf[256];

    //  Every default parses, and formats back to itself
    params_defaults(&params);
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        const option_t *opt = &params_options[k];
        CHECK(opt->name && opt->help && opt->levels);
        CHECK(params_set(&params, opt, opt->fallback, &err) == 0);
        params_format(&params, opt, buf, sizeof buf);
        CHECK(opt->type == TYPE_SIZES || strcmp(buf, opt->fallback) == 0);
    }
    params_defaults(&params);
    CHECK(params.hwm == 1000 && params.transport == TRANSPORT_TCP);
    CHECK(params.sizes.n == 15 && !params.set[KEY_HWM]);

    CHECK(params_set(&params, params_option("transport"), "tpc", &err) == -1);
    CHECK(strcmp(err.msg, "unknown transport 'tpc' (inproc, ipc, tcp)") == 0);
    CHECK(params_set(&params, params_option("hwm"), "10x", &err) == -1);
    CHECK(params_set(&params, params_option("hwm"), "1.5", &err) == -1);
    CHECK(params_set(&params, params_option("hwm"), "-1", &err) == -1);
    CHECK(params_set(&params, params_option("hwm"), "", &err) == -1);
    CHECK(params_set(&params, params_option("hwm"), " 5", &err) == -1);
    //  Whole numbers are decimal digits: the same text is refused everywhere
    CHECK(params_set(&params, params_option("hwm"), "1e3", &err) == -1);
    CHECK(strcmp(err.msg, "hwm must be a whole number, not '1e3'") == 0);
    CHECK(params_set(&params, params_option("messages"), "0x10", &err) == -1);
    CHECK(params_set(&params, params_option("count"), "2.0", &err) == -1);
    CHECK(params_set(&params, params_option("messages"), "99999999999999999999",
                     &err) == -1);
    CHECK(strcmp(err.msg, "messages must be between 0 and 1e+12, not "
                          "'99999999999999999999'") == 0);
    CHECK(params_set(&params, params_option("rate"), "1e3", &err) == 0);
    CHECK(params.rate == 1000);
    CHECK(params_set(&params, params_option("nodrop"), "maybe", &err) == -1);
    CHECK(params_set(&params, params_option("sizes"), "0..-5", &err) == -1);
    CHECK(params_set(&params, params_option("duration"), "nan", &err) == -1);
    CHECK(params_set(&params, params_option("cpus"), "0 1", &err) == -1);
    CHECK(params_set(&params, params_option("endpoint"), "tcp://a\"b", &err) ==
          -1);
    CHECK(strstr(err.msg, "has a quote character"));

    CHECK(params_set(&params, params_option("hwm"), "100000", &err) == 0);
    CHECK(params.hwm == 100000 && params.set[KEY_HWM]);
    CHECK(params_set(&params, params_option("nodrop"), "yes", &err) == 0);
    CHECK(params.nodrop);
    CHECK(params_set(&params, params_option("duration"), "0.5", &err) == 0);
    CHECK(params.duration == 0.5);

    //  Overlay: the inner level's given keys win, the rest come from outer
    params_t outer, inner, merged;
    params_defaults(&outer);
    params_defaults(&inner);
    CHECK(params_set(&outer, params_option("transport"), "ipc", &err) == 0);
    CHECK(params_set(&outer, params_option("hwm"), "5", &err) == 0);
    CHECK(params_set(&inner, params_option("hwm"), "7", &err) == 0);
    params_overlay(&merged, &outer, &inner);
    CHECK(merged.transport == TRANSPORT_IPC && merged.hwm == 7);
    CHECK(params_option("nosuchkey") == NULL);
    return 0;
}
