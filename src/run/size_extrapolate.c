/*  size_extrapolate: --extrapolate over size's rows; see
    size_extrapolate.h.  The check reads the --try and the topology; the
    fit reads the rows alone (a pure function, tested on rows made by
    hand); the report prints and writes what the fit made.
*/
#include "run/size_extrapolate.h"

#include "base/check.h"
#include "base/number.h"
#include "base/outfile.h"
#include "run/usl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

//  The largest k a prediction may name: one both io_threads and count take
#define S_KMAX                                                                 \
    (LIMIT_IO_THREADS < LIMIT_COUNT ? LIMIT_IO_THREADS : LIMIT_COUNT)

//  ---------------------------------------------------------------------
//  The check, before anything runs

//  The stage "broker.io_threads" names, or NULL (a topology-wide key)
static const topo_stage_t *s_stage(const topology_t *topo, const char *key)
{
    const char *dot = strrchr(key, '.');
    for (int i = 0; topo && dot && i < topo->nstages; i++)
        if (strlen(topo->stages[i].name) == (size_t)(dot - key) &&
            strncmp(topo->stages[i].name, key, (size_t)(dot - key)) == 0)
            return &topo->stages[i];
    return NULL;
}

//  A resource is what the deployment is given: I/O threads, all the
//  stages' or a broker's.  What the load is given (its publishers and
//  subscribers, their threads) is demand; a broker's count is not a key
//  (a proxy runs once)
static int s_resource(const char *key, const topology_t *topo, errbuf_t *err)
{
    const char *dot = strrchr(key, '.');
    const char *name = dot ? dot + 1 : key;
    const topo_stage_t *stage = s_stage(topo, key);
    bool proxy = stage && stage->role == ROLE_PROXY;
    if (strcmp(name, "count") == 0 && proxy)
        return err_set(err,
                       "--extrapolate: --try %s: proxy %s runs once (count "
                       "is for publishers and subscribers); it fits a "
                       "resource: io_threads, PROXY.io_threads",
                       key, stage->name);
    if (strcmp(name, "count") == 0)
        return err_set(err,
                       "--extrapolate: --try %s: a count of %ss is demand, "
                       "not a resource: it fits what the deployment is "
                       "given (io_threads, PROXY.io_threads)",
                       key,
                       stage ? pattern_role_names[stage->role] : "instance");
    if (strcmp(name, "io_threads") != 0)
        return err_set(err,
                       "--extrapolate: --try %s: not a count of a resource "
                       "(io_threads, PROXY.io_threads)",
                       key);
    if (stage && !proxy)
        return err_set(err,
                       "--extrapolate: --try %s: %s is a %s, the load: its "
                       "I/O threads are not the deployment's (a broker's "
                       "are: PROXY.io_threads)",
                       key, stage->name, pattern_role_names[stage->role]);
    return 0;
}

int size_extrapolate_check(const sweep_t *tries, int nfiles,
                           topology_t *const *topos, int n, errbuf_t *err)
{
    if (nfiles != 1 || tries->nkeys != 1)
        return err_set(err,
                       "--extrapolate fits one resource of one file: one "
                       "file and one --try key (--try broker.io_threads="
                       "1,2,3,4), not %d file%s and %d key%s",
                       nfiles, nfiles == 1 ? "" : "s", tries->nkeys,
                       tries->nkeys == 1 ? "" : "s");
    const char *key = tries->key[0];
    const topology_t *topo = NULL;
    for (int i = 0; i < n && !topo; i++)
        topo = topos[i];
    if (s_resource(key, topo, err))
        return -1;
    for (int v = 0; v < tries->nvalues[0]; v++) {
        double k;
        if (number_parse(tries->value[0][v], &k) || k < 1 || k != floor(k))
            return err_set(err,
                           "--extrapolate: --try %s: '%s' is not a count (a "
                           "whole number, at least 1)",
                           key, tries->value[0][v]);
    }
    if (tries->nvalues[0] < USL_MIN_POINTS)
        return err_set(err,
                       "--extrapolate: --try %s has %d value%s: a fit needs "
                       "at least %d points (4 to fit the USL's kappa too)",
                       key, tries->nvalues[0],
                       tries->nvalues[0] == 1 ? "" : "s", USL_MIN_POINTS);
    return 0;
}

//  ---------------------------------------------------------------------
//  The fits

static const sizing_fit_point_t s_none = {
    .k = -1, .candidate = -1, .capacity = -1, .fitted = -1};

//  The rows of one size whose --try is the key's: a point each, fitted
//  unless it was starved or not measured
static void s_points(const size_extrapolate_t *in, uint32_t size,
                     sizing_fit_t *f)
{
    size_t klen = strlen(f->key);
    for (int i = 0; i < in->n && f->npoints < SIZING_FIT_POINTS; i++) {
        const sizing_row_t *r = &in->rows[i];
        double k;
        if (r->size != size || strncmp(r->tried, f->key, klen) ||
            r->tried[klen] != '=' || number_parse(r->tried + klen + 1, &k))
            continue;
        sizing_fit_point_t *p = &f->point[f->npoints++];
        *p = s_none;
        p->k = k, p->candidate = r->number, p->kind = FIT_FITTED;
        if (r->capacity.value < 0) {
            p->kind = FIT_UNMEASURED;
            snprintf(p->why, sizeof p->why, "not measured: %s: %.140s",
                     sizing_verdict_names[r->verdict], r->why);
        } else if (p->capacity = r->capacity.value, r->starved) {
            p->kind = FIT_STARVED;
            snprintf(p->why, sizeof p->why,
                     "a trial of it was starved: its capacity may be the "
                     "machine's");
        }
    }
}

//  The law through the fitted points, or the answer FIT_NONE and why
static void s_fit(sizing_fit_t *f, usl_fit_t *fit)
{
    double k[SIZING_FIT_POINTS], x[SIZING_FIT_POINTS];
    int n = 0, measured = 0;
    for (int i = 0; i < f->npoints; i++) {
        measured += f->point[i].kind != FIT_UNMEASURED;
        if (f->point[i].kind == FIT_FITTED)
            k[n] = f->point[i].k, x[n++] = f->point[i].capacity;
    }
    f->lambda = f->sigma = f->kappa = f->se = f->kmin = f->kmax = -1;
    if (n < USL_MIN_POINTS || usl_fit(k, x, n, fit)) {
        f->answer = s_none;
        f->answer.kind = FIT_NONE;
        if (n < USL_MIN_POINTS)
            snprintf(f->answer.why, sizeof f->answer.why,
                     "%d point%s measured on trials not starved (of %d "
                     "measured): a fit needs at least %d",
                     n, n == 1 ? "" : "s", measured, USL_MIN_POINTS);
        else
            snprintf(f->answer.why, sizeof f->answer.why,
                     "%d points measured on trials not starved: none "
                     "carried anything",
                     n);
        return;
    }
    snprintf(f->law, sizeof f->law, "%s", fit->params == 3 ? "USL" : "Amdahl");
    f->nfitted = fit->n, f->params = fit->params;
    f->lambda = fit->lambda, f->sigma = fit->sigma, f->kappa = fit->kappa;
    f->se = fit->se, f->kmin = fit->kmin, f->kmax = fit->kmax;
    for (int i = 0, j = 0; i < f->npoints; i++) {
        f->point[i].fitted = usl_predict(fit, f->point[i].k);
        if (f->point[i].kind == FIT_FITTED)
            f->point[i].residual = fit->residual[j++];
    }
}

//  The measured point (starved or not) that carries what the target
//  needs with the smallest k, or the one at k; NULL: none
static const sizing_fit_point_t *s_measured(const sizing_fit_t *f, double k)
{
    const sizing_fit_point_t *found = NULL;
    for (int i = 0; i < f->npoints; i++) {
        const sizing_fit_point_t *p = &f->point[i];
        if (p->kind != FIT_UNMEASURED &&
            (k > 0 ? p->k == k : p->capacity >= f->need) &&
            (!found || p->k < found->k))
            found = p;
    }
    return found;
}

//  What the fit says of the target: never a k that was measured
static void s_answer(sizing_fit_t *f, const usl_fit_t *fit)
{
    sizing_fit_point_t *a = &f->answer;
    const sizing_fit_point_t *m = s_measured(f, 0);
    int k = usl_needed(fit, f->need, S_KMAX);
    if (!m && k > 0)
        m = s_measured(f, k);
    *a = s_none;
    if (m) {
        a->kind = FIT_ANSWERED, a->k = m->k, a->candidate = m->candidate;
        a->capacity = m->capacity, a->fitted = usl_predict(fit, m->k);
        snprintf(a->why, sizeof a->why,
                 "%s = %g was measured: candidate #%d's row answers (%.0f "
                 "msgs/s, %s); nothing is predicted",
                 f->key, m->k, m->candidate, m->capacity,
                 m->capacity >= f->need ? "it carries the target"
                                        : "short of the target, though "
                                          "the law says it carries it");
    } else if (k < 0) {
        //  the law's peak: its figure, never a capacity beside a k
        a->kind = FIT_BEYOND_PEAK, a->k = usl_peak(fit, S_KMAX);
        a->fitted = usl_predict(fit, a->k);
        a->beyond = a->k < f->kmin || a->k > f->kmax;
        snprintf(a->why, sizeof a->why,
                 "the law peaks at %.0f msgs/s (%s = %g%s), below it",
                 a->fitted, f->key, a->k,
                 a->beyond ? ", beyond the fitted range" : "");
    } else {
        a->kind = FIT_PREDICTED, a->k = k;
        a->capacity = a->fitted = usl_predict(fit, k);
        a->beyond = k < f->kmin || k > f->kmax;
        snprintf(a->why, sizeof a->why,
                 a->beyond ? "beyond the fitted range %g..%g: extrapolated, "
                             "not measured"
                           : "within the fitted range %g..%g: interpolated, "
                             "not measured",
                 f->kmin, f->kmax);
    }
}

int size_extrapolate_fit(const size_extrapolate_t *in, sizing_fit_t **out)
{
    int n = 0;
    for (int i = 0; i < in->n; i++) { //  the sizes, in the rows' order
        int j = 0;
        while (j < i && in->rows[j].size != in->rows[i].size)
            j++;
        n += j == i;
    }
    sizing_fit_t *fits = calloc(n ? (size_t)n : 1, sizeof *fits);
    if (!fits)
        return -1;
    for (int i = 0, f = 0; i < in->n; i++) {
        int j = 0;
        while (j < i && in->rows[j].size != in->rows[i].size)
            j++;
        if (j < i)
            continue;
        sizing_fit_t *fit = &fits[f++];
        usl_fit_t law;
        fit->size = in->rows[i].size;
        fit->need = sizing_offered(in->target);
        snprintf(fit->key, sizeof fit->key, "%s", in->tries->key[0]);
        s_points(in, fit->size, fit);
        s_fit(fit, &law);
        if (fit->law[0])
            s_answer(fit, &law);
    }
    *out = fits;
    return n;
}

int size_extrapolate_report(const sizing_fit_t *fits, int n, FILE *out,
                            const char *dir, errbuf_t *err)
{
    report_fit_lines(out, fits, n);
    FILE *csv = outfile_create(dir, "sizing_fit.csv", err);
    if (!csv)
        return -1;
    report_fit_csv(csv, fits, n);
    return outfile_close(csv, dir, "sizing_fit.csv", 0, err);
}

//  ---------------------------------------------------------------------

//  Rows as size makes them: candidate i + 1 of --try KEY=k[i] at size
static void s_row(sizing_row_t *r, int number, uint32_t size, double k,
                  double capacity, bool starved)
{
    *r = (sizing_row_t){.number = number,
                        .size = size,
                        .capacity = {capacity, -1, -1},
                        .starved = starved,
                        .verdict = SIZING_CAPACITY};
    snprintf(r->tried, sizeof r->tried, "broker.io_threads=%g", k);
    if (capacity < 0)
        r->verdict = SIZING_UNTRIED, snprintf(r->why, sizeof r->why, "x");
}

static int s_test_check(void)
{
    errbuf_t err;
    topology_t *topo =
        topology_load_text("t.cfg",
                           "topology = t\npublisher = pub\nhop\nproxy = "
                           "broker\nhop\nsubscriber = sub\n",
                           &err);
    CHECK(topo);
    topology_t *topos[2] = {NULL, topo};
    static const char *const cases[][2] = {
        {"broker.io_threads=1,2,3", NULL},
        {"io_threads=1,2,3,4", NULL},
        {"pub.count=1,2,3", "a count of publishers is demand, not a resource"},
        {"sub.count=1,2,3", "a count of subscribers is demand"},
        {"sub.io_threads=1,2,3", "sub is a subscriber, the load"},
        {"engine=steerable,forwarder,zproxy", "not a count of a resource"},
        {"broker.count=1,2,3", "proxy broker runs once"},
        {"broker.io_threads=1,2", "has 2 values: a fit needs at least 3"},
        {"broker.io_threads=1,2,2.5", "'2.5' is not a count"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sweep_t tries;
        const char *spec = cases[i][0];
        CHECK(sweep_parse(&tries, &spec, 1, "--try", &err) == 0);
        int rc = size_extrapolate_check(&tries, 1, topos, 2, &err);
        CHECK(cases[i][1] ? rc == -1 && strstr(err.msg, cases[i][1]) : rc == 0);
    }
    sweep_t tries;
    const char *spec = "io_threads=1,2,3";
    CHECK(sweep_parse(&tries, &spec, 1, "--try", &err) == 0);
    CHECK(size_extrapolate_check(&tries, 2, topos, 2, &err) == -1 &&
          strstr(err.msg, "one file and one --try key"));
    topology_destroy(&topo);
    return 0;
}

int size_extrapolate_test(bool verbose)
{
    (void)verbose;
    CHECK(s_test_check() == 0);
    //  Two sizes, k = 1..4 each: 64 B on the law, 1024 B with k = 2
    //  starved; the target beyond both
    usl_fit_t truth = {.lambda = 1000, .sigma = 0.1, .kappa = 0.01};
    sizing_row_t rows[8];
    for (int i = 0; i < 8; i++)
        s_row(&rows[i], i + 1, i % 2 ? 1024 : 64, i / 2 + 1,
              usl_predict(&truth, i / 2 + 1) / (i % 2 ? 2 : 1), i == 3);
    sweep_t tries = {.nkeys = 1, .key = {"broker.io_threads"}};
    sizing_target_t target = {.rate = 2500, .headroom = 0.2}; //  3000
    size_extrapolate_t in = {&tries, 1, rows, 8, &target};
    sizing_fit_t *fits;
    CHECK(size_extrapolate_fit(&in, &fits) == 2);
    //  64 B: the USL through 4 points; X(5) = 3125 carries 3000
    const sizing_fit_t *f = &fits[0];
    CHECK(f->size == 64 && strcmp(f->law, "USL") == 0 && f->nfitted == 4);
    CHECK(fabs(f->lambda - 1000) < 0.1 && f->kmin == 1 && f->kmax == 4);
    CHECK(f->answer.kind == FIT_PREDICTED && f->answer.k == 5 &&
          f->answer.beyond && f->answer.candidate == -1);
    CHECK(strstr(f->answer.why, "beyond the fitted range 1..4"));
    //  1024 B: k = 2 left out (starved), Amdahl through 1, 3, 4; half
    //  the rate peaks below 3000
    f = &fits[1];
    CHECK(f->size == 1024 && f->npoints == 4 && f->nfitted == 3);
    CHECK(strcmp(f->law, "Amdahl") == 0 && f->kappa == 0);
    CHECK(f->point[1].kind == FIT_STARVED && f->point[1].candidate == 4);
    CHECK(f->point[1].fitted > 0 && f->point[0].kind == FIT_FITTED);
    CHECK(f->answer.kind == FIT_BEYOND_PEAK || f->answer.kind == FIT_PREDICTED);
    CHECK(f->answer.kind != FIT_BEYOND_PEAK ||
          (f->answer.capacity < 0 && f->answer.fitted > 0));
    free(fits);
    //  A measured row that carries the target answers: no prediction
    target.rate = 2000; //  2400: k = 4 carried 2817
    CHECK(size_extrapolate_fit(&in, &fits) == 2);
    CHECK(fits[0].answer.kind == FIT_ANSWERED && fits[0].answer.k == 4 &&
          fits[0].answer.candidate == 7);
    free(fits);
    //  Two points not starved: no fit, said
    s_row(&rows[2], 3, 64, 2, -1, false);
    s_row(&rows[4], 5, 64, 3, -1, false);
    CHECK(size_extrapolate_fit(&in, &fits) == 2);
    CHECK(fits[0].answer.kind == FIT_NONE && !fits[0].law[0]);
    CHECK(fits[0].point[1].kind == FIT_UNMEASURED &&
          strstr(fits[0].point[1].why, "not measured: not tried: x"));
    CHECK(strstr(fits[0].answer.why, "2 points measured on trials not "
                                     "starved (of 2 measured): a fit needs "
                                     "at least 3"));
    free(fits);
    return 0;
}
