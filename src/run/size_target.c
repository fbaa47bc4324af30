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
    double value, scale = text[len] ? 0 : 1;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        if (strcmp(text + len, units[u].unit) == 0)
            scale = units[u].us;
    if (scale == 0 || number_parse(number, &value) || !(value > 0))
        return -1;
    *us = value * scale;
    return 0;
}

//  One KEY=VALUE of --target
static int s_word(sizing_target_t *t, const char *word, bool *rate,
                  errbuf_t *err)
{
    const char *eq = strchr(word, '=');
    size_t klen = eq ? (size_t)(eq - word) : strlen(word);
    const char *value = eq ? eq + 1 : "";
    double x;
    bool number = number_parse(value, &x) == 0;
#define S_IS(name) (klen == strlen(name) && strncmp(word, name, klen) == 0)
    if (S_IS("rate")) {
        if (!number || !(x > 0) || x > 1e12)
            return err_set(err, "--target rate=%s: msgs/s offered by the "
                           "publishers together, a number above 0", value);
        t->rate = x, *rate = true;
    } else if (S_IS("p99")) {
        if (size_duration_us(value, &t->p99_us))
            return err_set(err, "--target p99=%s: a duration above 0 with "
                           "a unit (800ns, 500us, 2ms, 1s)", value);
    } else if (S_IS("loss")) {
        if (!number || x < 0 || x >= 1)
            return err_set(err, "--target loss=%s: a loss ratio, at least 0 "
                           "and less than 1", value);
        t->loss = x;
    } else if (S_IS("headroom")) {
        if (!number || x < 0 || x > 10)
            return err_set(err, "--target headroom=%s: a share between 0 "
                           "and 10 (0.2: it must carry 1.2 x rate)", value);
        t->headroom = x;
    } else
        return err_set(err, "--target: unknown key '%.*s' (rate, p99, "
                       "loss, headroom)", (int)klen, word);
#undef S_IS
    return 0;
}

int size_target_parse(const char *text, sizing_target_t *out, errbuf_t *err)
{
    sizing_target_t t = {.headroom = 0.2};
    bool rate = false;
    char copy[512];
    if (!text)
        return err_set(err, "size needs --target rate=R[,p99=L,loss=X,"
                            "headroom=H]");
    snprintf(copy, sizeof copy, "%s", text);
    char *rest = copy;
    for (char *w = strsep(&rest, ","); w; w = strsep(&rest, ","))
        if (s_word(&t, w, &rate, err))
            return -1;
    if (!rate)
        return err_set(err, "--target %s: no rate=R (msgs/s offered by the "
                       "publishers together)", text);
    *out = t;
    return 0;
}

//  Keys size sets itself, or that hold commas: they cannot vary
static const char *const s_fixed[] = {
    "sizes",        "mode",           "rate",          "messages",
    "duration",     "repeat",         "loss_ratio",    "p99_us",
    "latency_at",   "search_trial",   "search_confirm", "search_trials",
    "search_precision", "pattern",    "precision",     "max_repeat",
    "order",        NULL};

static int s_check_key(const char *spec, const char *key, errbuf_t *err)
{
    const char *dot = strrchr(key, '.');
    const char *name = dot ? dot + 1 : key;
    for (int i = 0; s_fixed[i]; i++)
        if (strcmp(name, s_fixed[i]) == 0)
            return err_set(err, "--try %s: %s cannot vary between "
                           "candidates (size sets it, or it takes a list)",
                           spec, name);
    if (!params_option(name))
        return err_set(err, "--try %s: unknown key '%s' (hopbench "
                       "--help-keys)", spec, name);
    return 0;
}

int size_try_parse(const char *const *specs, int n, sweep_t *out,
                   errbuf_t *err)
{
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(specs[i], '=');
        if (!eq || !eq[1])
            return err_set(err, "--try %s: expected KEY=V1,V2,... (an "
                           "empty list)", specs[i]);
    }
    if (sweep_parse(out, specs, n, err)) {
        //  its messages say --sweep: they are about --try here
        char *at = strstr(err->msg, "--sweep");
        if (at)
            memcpy(at, "--try  ", 7);
        return -1;
    }
    for (int k = 0; k < out->nkeys; k++)
        if (s_check_key(specs[k], out->key[k], err))
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
    CHECK(size_target_parse("rate=5e4,p99=250,loss=0.01,headroom=0", &t,
                            &err) == 0);
    CHECK(t.rate == 50000 && t.p99_us == 250 && t.loss == 0.01 &&
          t.headroom == 0);
    CHECK(size_duration_us("800ns", &us) == 0 && us == 0.8);
    CHECK(size_duration_us("2ms", &us) == 0 && us == 2000);
    CHECK(size_duration_us("abc", &us) == -1);
    CHECK(size_duration_us("5 ms", &us) == -1);
    static const char *bad[][2] = {
        {"rate=0", "rate=0"},
        {"rate=-1", "rate=-1"},
        {"rate=1,p99=abc", "p99=abc"},
        {"rate=1,headroom=-0.5", "headroom=-0.5"},
        {"rate=1,speed=3", "unknown key 'speed'"},
        {"p99=1ms", "no rate"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(size_target_parse(bad[i][0], &t, &err) == -1 &&
              strstr(err.msg, bad[i][1]));
    sweep_t sweep;
    const char *good[] = {"engine=steerable,forwarder", "broker.io_threads=1,2"};
    CHECK(size_try_parse(good, 2, &sweep, &err) == 0 && sweep_count(&sweep) == 4);
    const char *fixed[] = {"sizes=64,1024"};
    CHECK(size_try_parse(fixed, 1, &sweep, &err) == -1 &&
          strstr(err.msg, "sizes cannot vary"));
    const char *empty[] = {"engine="};
    CHECK(size_try_parse(empty, 1, &sweep, &err) == -1 &&
          strstr(err.msg, "--try engine="));
    const char *unknown[] = {"colour=red,blue"};
    CHECK(size_try_parse(unknown, 1, &sweep, &err) == -1 &&
          strstr(err.msg, "unknown key 'colour'"));
    return 0;
}
