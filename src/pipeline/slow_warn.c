/*  slow_warn: a slow subscriber that can hold its broker's counters back
    (see slow_warn.h).
*/
#include "pipeline/slow_warn.h"

#include "base/check.h"
#include "config/engines.h"

#include <stdio.h>
#include <string.h>

//  Is instance id a broker whose counters wait for its sends?
static bool s_answers_late(const pipeline_t *pl, int id)
{
    const instance_t *inst = &pl->inst[id];
    return inst->role == ROLE_PROXY &&
           engine_can(inst->params.engine, TRAIT_ANSWERS_BETWEEN_MESSAGES);
}

//  Can sink, a subscriber below broker, hold the broker's counters past
//  the margin with its consume_ns?
static bool s_holds(const pipeline_t *pl, int broker, int sink)
{
    double hold = (double)SLOW_BURST * pl->inst[sink].params.consume_ns / 1e9;
    return pipeline_is_sink(pl, sink) && pl->inst[sink].params.consume_ns > 0 &&
           pipeline_reaches(pl, broker, sink) &&
           hold * SLOW_MARGIN >= pl->params.timeout;
}

static void s_say(const pipeline_t *pl, int broker, int sink, char *out,
                  size_t len)
{
    const instance_t *b = &pl->inst[broker], *s = &pl->inst[sink];
    size_t used = strlen(out);
    if (used + 1 >= len)
        return;
    snprintf(out + used, len - used,
             "consume_ns = %d on %s: %s (engine %s) answers its counters "
             "between messages, after up to %d sends each waiting for %s "
             "(%.2f s), a tenth of the timeout (%g s) or more: the run can "
             "fail with its counters not coming (no COUNTS within the "
             "timeout); engine = forwarder counts without asking, or give "
             "a smaller consume_ns or a larger timeout\n",
             s->params.consume_ns, pl->topo->stages[s->stage].name,
             pl->topo->stages[b->stage].name, engine_name(b->params.engine),
             SLOW_BURST, pl->topo->stages[s->stage].name,
             (double)SLOW_BURST * s->params.consume_ns / 1e9, pl->params.timeout);
}

void slow_warnings(const pipeline_t *pl, char *out, size_t len)
{
    out[0] = 0;
    if (!pipeline_backpressure(pl))
        return;
    for (int b = 0; b < pl->nstages; b++) {
        int broker = pl->first[b];
        if (!s_answers_late(pl, broker))
            continue;
        for (int s = 0; s < pl->nstages; s++) {
            bool said = false;
            for (int k = 0; k < pl->count[s] && !said; k++)
                if ((said = s_holds(pl, broker, pl->first[s] + k)))
                    s_say(pl, broker, pl->first[s] + k, out, len);
        }
    }
}

//  ------------------------------------------------------------------------
//  Selftest

//  A broker of each engine above two subscribers, in each mode, and what
//  its warnings must hold (NULL: none); said once per subscriber stage
static const struct {
    const char *mode, *engine;
    int consume_ns;
    const char *said;
} s_cases[] = {
    //  200 us x 1000 = 0.2 s, a tenth of the timeout (2 s)
    {"capacity", "steerable", 200000,
     "consume_ns = 200000 on sub: broker (engine steerable) answers its "
     "counters between messages, after up to 1000 sends each waiting for "
     "sub (0.20 s), a tenth of the timeout (2 s) or more"},
    {"capacity", "steerable", 1000000000, "(1000.00 s)"}, //  no overflow
    {"capacity", "steerable", 100000, NULL},              //  below a tenth
    {"capacity", "forwarder", 900000, NULL}, //  counts without asking
    {"flood", "steerable", 900000, NULL},    //  no back-pressure
};

int slow_warn_test(bool verbose)
{
    (void)verbose;
    for (size_t c = 0; c < sizeof s_cases / sizeof s_cases[0]; c++) {
        char text[512], out[1024];
        snprintf(text, sizeof text,
                 "topology = t\n    timeout = 2\n    mode = %s\n"
                 "publisher = pub\nhop\nproxy = broker\n    engine = %s\n"
                 "hop\nsubscriber = sub\n    count = 2\n"
                 "    consume_ns = %d\n",
                 s_cases[c].mode, s_cases[c].engine, s_cases[c].consume_ns);
        errbuf_t err;
        pipeline_fixture_t f;
        CHECK(pipeline_fixture_new(&f, text, &err) == 0);
        slow_warnings(f.pl, out, sizeof out);
        pipeline_fixture_free(&f);
        const char *said = s_cases[c].said;
        CHECK(said ? strstr(out, said) && strchr(out, '\n') == strrchr(out, '\n')
                   : out[0] == 0);
    }
    return 0;
}
