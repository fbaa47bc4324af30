/*  size_target: --target and --try, parsed; see size_target.h.  Pure:
    no file, no machine.
*/
#include "run/size_target.h"

#include "base/check.h"
#include "base/number.h"
#include "config/params.h"

#include <stdio.h>
#include <string.h>

int size_duration_us(const char *text, double *us)
{
    static const struct {
        const char *unit;
        double us;
    } units[] = {{"ns", 1e-3}, {"us", 1}, {"ms", 1e3}, {"s", 1e6}};
    char number[64];
    size_t len = strcspn(text, "abcdefghijklmnopqrstuvwxyz");
    if (len == 0 || len >= sizeof number)
        return -1;
    snprintf(number, sizeof number, "%.*s", (int)len, text);
    double value, scale = 0; //  a bare number: which unit was meant?
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        if (strcmp(text + len, units[u].unit) == 0)
            scale = units[u].us;
    if (scale == 0 || number_parse(number, &value) || !(value > 0))
        return -1;
    *us = value * scale;
    return 0;
}

//  The keys of --target, in the order messages list them
static const char *const s_keys[] = {"rate", "p99", "loss", "headroom"};
#define S_NKEYS (int)(sizeof s_keys / sizeof *s_keys)

//  One KEY=VALUE of --target; given[] marks the keys seen
static int s_word(sizing_target_t *t, const char *word, bool *given,
                  errbuf_t *err)
{
    const char *eq = strchr(word, '=');
    size_t klen = eq ? (size_t)(eq - word) : strlen(word);
    const char *value = eq ? eq + 1 : "";
    double x;
    bool number = number_parse(value, &x) == 0;
    int key = 0;
    while (key < S_NKEYS && !(klen == strlen(s_keys[key]) &&
                              strncmp(word, s_keys[key], klen) == 0))
        key++;
    if (key == S_NKEYS)
        return err_set(err,
                       "--target: unknown key '%.*s' (rate, p99, "
                       "loss, headroom)",
                       (int)klen, word);
    if (given[key])
        return err_set(err,
                       "--target %s: %s is given twice (which one "
                       "was meant?)",
                       word, s_keys[key]);
    given[key] = true;
#define S_IS(name) (strcmp(s_keys[key], name) == 0)
    if (S_IS("rate")) {
        if (!number || !(x > 0) || x > 1e12)
            return err_set(err,
                           "--target rate=%s: msgs/s offered by the "
                           "publishers together, a number above 0",
                           value);
        t->rate = x;
    } else if (S_IS("p99")) {
        if (number && x > 0)
            return err_set(err,
                           "--target p99=%s: which unit? a duration "
                           "takes one (%sns, %sus, %sms, %ss)",
                           value, value, value, value, value);
        if (size_duration_us(value, &t->p99_us))
            return err_set(err,
                           "--target p99=%s: a duration above 0 with "
                           "a unit (800ns, 500us, 2ms, 1s)",
                           value);
    } else if (S_IS("loss")) {
        if (!number || x < 0 || x >= 1)
            return err_set(err,
                           "--target loss=%s: a loss ratio, at least 0 "
                           "and less than 1",
                           value);
        t->loss = x;
    } else {
        if (!number || x < 0 || x > 10)
            return err_set(err,
                           "--target headroom=%s: a share between 0 "
                           "and 10 (0.2: it must carry 1.2 x rate)",
                           value);
        t->headroom = x;
    }
#undef S_IS
    return 0;
}

int size_target_parse(const char *text, sizing_target_t *out, errbuf_t *err)
{
    sizing_target_t t = {.headroom = 0.2};
    bool given[S_NKEYS] = {false};
    char copy[512];
    if (!text)
        return err_set(err, "size needs --target rate=R[,p99=L,loss=X,"
                            "headroom=H]");
    snprintf(copy, sizeof copy, "%s", text);
    char *rest = copy;
    for (char *w = strsep(&rest, ","); w; w = strsep(&rest, ","))
        if (s_word(&t, w, given, err))
            return -1;
    if (!given[0])
        return err_set(err,
                       "--target %s: no rate=R (msgs/s offered by the "
                       "publishers together)",
                       text);
    *out = t;
    return 0;
}

int size_target_measurable(const sizing_target_t *t, double trial,
                           double window, errbuf_t *err)
{
    bool shorter = trial <= window;
    double seconds = shorter ? trial : window;
    const char *key = shorter ? "search_trial" : "size_window";
    if (t->rate * seconds >= SIZE_TRIAL_MESSAGES)
        return 0;
    return err_set(err,
                   "--target rate=%g: a %s of %g s (%s) at that rate "
                   "carries %g messages; a p99, or a loss ratio to 1 %%, "
                   "needs at least %d: a rate of at least %g msgs/s, or "
                   "longer ones (--set %s=%g)",
                   t->rate, shorter ? "trial" : "p99 window", seconds, key,
                   t->rate * seconds, SIZE_TRIAL_MESSAGES,
                   SIZE_TRIAL_MESSAGES / seconds, key,
                   SIZE_TRIAL_MESSAGES / t->rate);
}

//  Keys size sets itself, or that hold commas: they cannot vary
static const char *const s_fixed[] = {"sizes",
                                      "mode",
                                      "rate",
                                      "messages",
                                      "duration",
                                      "repeat",
                                      "loss_ratio",
                                      "p99_us",
                                      "latency_at",
                                      "search_trial",
                                      "search_confirm",
                                      "search_trials",
                                      "search_precision",
                                      "pattern",
                                      "precision",
                                      "max_repeat",
                                      "order",
                                      NULL};

static int s_check_key(const char *spec, const char *key, errbuf_t *err)
{
    const char *dot = strrchr(key, '.');
    const char *name = dot ? dot + 1 : key;
    for (int i = 0; s_fixed[i]; i++)
        if (strcmp(name, s_fixed[i]) == 0)
            return err_set(err,
                           "--try %s: %s cannot vary between "
                           "candidates (size sets it, or it takes a list)",
                           spec, name);
    if (!params_option(name))
        return err_set(err,
                       "--try %s: unknown key '%s' (hopbench "
                       "--help-keys)",
                       spec, name);
    return 0;
}

//  One value twice (or 2 and 2.0) makes two candidates nobody can tell
//  apart
static int s_check_values(const char *spec, const sweep_t *tries, int k,
                          errbuf_t *err)
{
    for (int i = 0; i < tries->nvalues[k]; i++)
        for (int j = 0; j < i; j++) {
            const char *a = tries->value[k][j], *b = tries->value[k][i];
            double x, y;
            if (strcmp(a, b) == 0)
                return err_set(err,
                               "--try %s: %s is given twice: its "
                               "candidates would be the same",
                               spec, a);
            if (number_parse(a, &x) == 0 && number_parse(b, &y) == 0 && x == y)
                return err_set(err,
                               "--try %s: %s and %s are the same "
                               "%s: their candidates would be the same",
                               spec, a, b, tries->key[k]);
        }
    return 0;
}

int size_try_parse(const char *const *specs, int n, sweep_t *out, errbuf_t *err)
{
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(specs[i], '=');
        if (!eq || !eq[1])
            return err_set(err,
                           "--try %s: expected KEY=V1,V2,... (an "
                           "empty list)",
                           specs[i]);
    }
    if (sweep_parse(out, specs, n, "--try", err))
        return -1;
    for (int k = 0; k < out->nkeys; k++)
        if (s_check_key(specs[k], out->key[k], err) ||
            s_check_values(specs[k], out, k, err))
            return -1;
    return 0;
}

int size_target_test(bool verbose)
{
    (void)verbose;
    sizing_target_t t;
    errbuf_t err;
    double us;
    CHECK(size_target_parse("rate=2000,p99=1s", &t, &err) == 0);
    CHECK(t.rate == 2000 && t.p99_us == 1e6 && t.loss == 0 &&
          t.headroom == 0.2);
    CHECK(size_target_parse("rate=5e4,p99=250us,loss=0.01,headroom=0", &t,
                            &err) == 0);
    CHECK(t.rate == 50000 && t.p99_us == 250 && t.loss == 0.01 &&
          t.headroom == 0);
    CHECK(size_duration_us("800ns", &us) == 0 && us == 0.8);
    CHECK(size_duration_us("2ms", &us) == 0 && us == 2000);
    CHECK(size_duration_us("abc", &us) == -1);
    CHECK(size_duration_us("5 ms", &us) == -1);
    CHECK(size_duration_us("250", &us) == -1); //  which unit?
    static const char *bad[][2] = {
        {"rate=0", "rate=0"},
        {"rate=-1", "rate=-1"},
        {"rate=1,p99=abc", "p99=abc"},
        {"rate=1,headroom=-0.5", "headroom=-0.5"},
        {"rate=1,speed=3", "unknown key 'speed'"},
        {"p99=1ms", "no rate"},
        {"rate=2000,p99=5", "p99=5: which unit? a duration takes one (5ns, "
                            "5us, 5ms, 5s)"},
        {"rate=2000,rate=3000", "rate=3000: rate is given twice"},
        {"rate=2000,p99=1ms,p99=2ms", "p99=2ms: p99 is given twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(size_target_parse(bad[i][0], &t, &err) == -1 &&
              strstr(err.msg, bad[i][1]));
    //  a trial must carry enough messages to measure a p99 and a loss
    CHECK(size_target_parse("rate=0.5", &t, &err) == 0);
    CHECK(size_target_measurable(&t, 1, 1, &err) == -1);
    CHECK(strcmp(err.msg, "--target rate=0.5: a trial of 1 s (search_trial) "
                          "at that rate carries 0.5 messages; a p99, or a "
                          "loss ratio to 1 %, needs at least 100: a rate of "
                          "at least 100 msgs/s, or longer ones (--set "
                          "search_trial=200)") == 0);
    CHECK(size_target_parse("rate=20", &t, &err) == 0);
    CHECK(size_target_measurable(&t, 10, 5, &err) == 0);
    CHECK(size_target_measurable(&t, 10, 2, &err) == -1 &&
          strstr(err.msg, "a p99 window of 2 s (size_window)") &&
          strstr(err.msg, "(--set size_window=5)"));
    sweep_t sweep;
    const char *good[] = {"engine=steerable,forwarder",
                          "broker.io_threads=1,2"};
    CHECK(size_try_parse(good, 2, &sweep, &err) == 0 &&
          sweep_count(&sweep) == 4);
    const char *fixed[] = {"sizes=64,1024"};
    CHECK(size_try_parse(fixed, 1, &sweep, &err) == -1 &&
          strstr(err.msg, "sizes cannot vary"));
    const char *empty[] = {"engine="};
    CHECK(size_try_parse(empty, 1, &sweep, &err) == -1 &&
          strstr(err.msg, "--try engine="));
    const char *same[] = {"engine=forwarder,steerable,forwarder"};
    CHECK(size_try_parse(same, 1, &sweep, &err) == -1 &&
          strcmp(err.msg, "--try engine=forwarder,steerable,forwarder: "
                          "forwarder is given twice: its candidates would "
                          "be the same") == 0);
    const char *spelt[] = {"io_threads=1,2,1.0"};
    CHECK(size_try_parse(spelt, 1, &sweep, &err) == -1 &&
          strstr(err.msg, "1 and 1.0 are the same io_threads"));
    const char *twice[] = {"engine=forwarder", "engine=steerable"};
    CHECK(size_try_parse(twice, 2, &sweep, &err) == -1 &&
          strcmp(err.msg, "--try engine=steerable: engine is given twice "
                          "(one --try per key)") == 0);
    const char *unknown[] = {"colour=red,blue"};
    CHECK(size_try_parse(unknown, 1, &sweep, &err) == -1 &&
          strstr(err.msg, "unknown key 'colour'"));
    return 0;
}
