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

//  The first instances of a broker stage and a subscriber stage below it
//  whose consume_ns can hold the broker's counters past the margin
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
             "fail with no STATISTICS reply; engine = forwarder counts "
             "without asking, or give a smaller consume_ns or a larger "
             "timeout\n",
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

static int s_warned(const char *text, char *out, size_t len)
{
    errbuf_t err;
    pipeline_fixture_t f;
    int rc = pipeline_fixture_new(&f, text, &err);
    if (rc == 0)
        slow_warnings(f.pl, out, len);
    pipeline_fixture_free(&f);
    return rc;
}

int slow_warn_test(bool verbose)
{
    (void)verbose;
    char out[1024];
    const char *chain = "topology = t\n    timeout = 2\n    mode = %s\n"
                        "publisher = pub\nhop\nproxy = broker\n"
                        "    engine = %s\nhop\nsubscriber = sub\n"
                        "    count = 2\n    consume_ns = %d\n";
    char text[512];
    //  200 us x 1000 = 0.2 s, a tenth of 2 s: said once for the stage
    snprintf(text, sizeof text, chain, "capacity", "steerable", 200000);
    CHECK(s_warned(text, out, sizeof out) == 0);
    CHECK(strstr(out, "consume_ns = 200000 on sub: broker (engine "
                      "steerable) answers its counters") &&
          strchr(out, '\n') == out + strlen(out) - 1);
    //  below the margin; a forwarder; flood (no back-pressure): nothing
    snprintf(text, sizeof text, chain, "capacity", "steerable", 1000000000);
    CHECK(s_warned(text, out, sizeof out) == 0 && strstr(out, "(1000.00 s)"));
    snprintf(text, sizeof text, chain, "capacity", "steerable", 100000);
    CHECK(s_warned(text, out, sizeof out) == 0 && out[0] == 0);
    snprintf(text, sizeof text, chain, "capacity", "forwarder", 900000);
    CHECK(s_warned(text, out, sizeof out) == 0 && out[0] == 0);
    snprintf(text, sizeof text, chain, "flood", "steerable", 900000);
    CHECK(s_warned(text, out, sizeof out) == 0 && out[0] == 0);
    return 0;
}
