/*  sizing_fit: the outputs of `hopbench size --extrapolate`; see
    sizing_fit.h.  Each format is one function over the fits.
*/
#include "report/sizing_fit.h"

#include "base/check.h"
#include "report/columns.h"

#include <stdlib.h>
#include <string.h>

const char *const sizing_fit_kinds[] = {
    "fitted",    "left out: starved",          "left out: not measured",
    "predicted", "answered by a measured row", "beyond the peak",
    "no fit"};

//  "USL over broker.io_threads 1..3, 4 points (#1 #2 #3 #5): ..."
static void s_fit_line(FILE *out, const sizing_fit_t *f)
{
    fprintf(out, "extrapolated at %u B: %s over %s %g..%g, %d points (",
            f->size,
            f->params == 3 ? "USL"
                           : "Amdahl's law (kappa held at 0: a 4th point "
                             "fits the USL)",
            f->key, f->kmin, f->kmax, f->nfitted);
    for (int i = 0, said = 0; i < f->npoints; i++)
        if (f->point[i].kind == FIT_FITTED)
            fprintf(out, "%s#%d", said++ ? " " : "", f->point[i].candidate);
    fprintf(out, "): lambda %.0f msgs/s, sigma %.4f, kappa %.5f; residuals",
            f->lambda, f->sigma, f->kappa);
    for (int i = 0; i < f->npoints; i++)
        if (f->point[i].kind == FIT_FITTED)
            fprintf(out, " %g:%+.0f", f->point[i].k, f->point[i].residual);
    fprintf(out, ", standard error %.0f msgs/s (%d degree%s of freedom)\n",
            f->se, f->nfitted - f->params,
            f->nfitted - f->params == 1 ? "" : "s");
}

static void s_answer_line(FILE *out, const sizing_fit_t *f)
{
    const sizing_fit_point_t *a = &f->answer;
    fprintf(out, "extrapolated at %u B: ", f->size);
    if (a->kind == FIT_PREDICTED)
        fprintf(out, "%s = %g would carry %.0f msgs/s (the law gives %.0f), ",
                f->key, a->k, f->need, a->capacity);
    else if (a->kind == FIT_BEYOND_PEAK)
        fprintf(out, "no %s carries %.0f msgs/s: ", f->key, f->need);
    else
        fprintf(out, "no prediction: ");
    fprintf(out, "%s\n", a->why);
}

void report_fit_lines(FILE *out, const sizing_fit_t *fits, int n)
{
    for (int i = 0; i < n; i++) {
        const sizing_fit_t *f = &fits[i];
        if (f->law[0])
            s_fit_line(out, f);
        for (int j = 0; j < f->npoints; j++)
            if (f->point[j].kind != FIT_FITTED)
                fprintf(out, "extrapolated at %u B: left out %s=%g (#%d): %s\n",
                        f->size, f->key, f->point[j].k, f->point[j].candidate,
                        f->point[j].why);
        s_answer_line(out, f);
    }
}

void report_fit_csv(FILE *out, const sizing_fit_t *fits, int n)
{
    report_info_t info = {0};
    columns_header(out, &columns_sizing_fit, &info);
    for (int i = 0; i < n; i++) {
        column_ctx_t ctx = {.info = &info, .of = &fits[i]};
        columns_rows(out, &columns_sizing_fit, ctx, fits[i].point,
                     fits[i].npoints, sizeof *fits[i].point, false);
        columns_rows(out, &columns_sizing_fit, ctx, &fits[i].answer, 1,
                     sizeof fits[i].answer, false);
    }
}

//  The columns that are the fit's (of), or a row's
static json_t *s_json_columns(const column_ctx_t *ctx, bool of)
{
    json_t *obj = json_object();
    for (int c = 0; obj && c < columns_sizing_fit.ncolumns; c++) {
        const column_t *col = &columns_sizing_fit.columns[c];
        column_value_t v;
        if (!(col->row.flags & COLUMN_OF) != !of)
            continue;
        columns_value(&col->row, ctx, &v);
        if (jsondoc_set(obj, col->name, columns_json_value(&v)))
            json_decref(obj), obj = NULL;
    }
    return obj;
}

//  One size's fit: its columns, and "rows": its points, then its answer
static json_t *s_json_fit(const sizing_fit_t *f)
{
    report_info_t info = {0};
    column_ctx_t ctx = {.info = &info, .of = f, .row = &f->answer};
    json_t *fit = s_json_columns(&ctx, true), *rows = json_array();
    for (int j = 0; fit && rows && j <= f->npoints; j++) {
        ctx.row = j < f->npoints ? &f->point[j] : &f->answer;
        if (json_array_append_new(rows, s_json_columns(&ctx, false)))
            json_decref(rows), rows = NULL;
    }
    if (fit && jsondoc_set(fit, "rows", rows))
        json_decref(fit), fit = NULL;
    else if (!fit)
        json_decref(rows);
    return fit;
}

json_t *report_fit_json(const sizing_fit_t *fits, int n)
{
    json_t *list = json_array();
    for (int i = 0; list && i < n; i++)
        if (json_array_append_new(list, s_json_fit(&fits[i])))
            json_decref(list), list = NULL;
    return list;
}

//  A fit made by hand: 3 points, one left out, an answer beyond the range
int sizing_fit_test(bool verbose)
{
    (void)verbose;
    static sizing_fit_t f = {
        .size = 64,
        .key = "broker.io_threads",
        .npoints = 4,
        .point = {{FIT_FITTED, 1, 1, 1000, 990, 10, false, ""},
                  {FIT_FITTED, 2, 3, 1800, 1820, -20, false, ""},
                  {FIT_STARVED, 3, 5, 900, 2400, 0, false, "starved"},
                  {FIT_FITTED, 4, 7, 2900, 2890, 10, false, ""}},
        .answer = {FIT_PREDICTED, 6, -1, 3600, 3600, 0, true, "beyond"},
        .law = "Amdahl",
        .nfitted = 3,
        .params = 2,
        .lambda = 990,
        .sigma = 0.125,
        .kappa = 0,
        .se = 24.5,
        .kmin = 1,
        .kmax = 4,
        .need = 3500};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out);
    report_fit_csv(out, &f, 1);
    report_fit_lines(out, &f, 1);
    fclose(out);
    //  a row per point, then the answer; the fit's residuals and range
    CHECK(text && strstr(text, "size,key,kind,k,candidate,capacity_per_sec,"
                               "fitted_per_sec,residual_per_sec,"));
    CHECK(strstr(text,
                 "\n64,\"broker.io_threads\",fitted,2,3,1800.0,1820.0,"
                 "-20.0,0,Amdahl,3,2,990.0,0.125,0,24.5,1,4,3500.0,\"\"\n"));
    CHECK(strstr(text, "\n64,\"broker.io_threads\",left out: starved,3,5,"
                       "900.0,2400.0,,0,"));
    CHECK(strstr(text, "\n64,\"broker.io_threads\",predicted,6,,3600.0,3600.0,"
                       ",1,Amdahl,"));
    CHECK(strstr(text, "extrapolated at 64 B: Amdahl's law (kappa held at 0: "
                       "a 4th point fits the USL) over broker.io_threads 1..4, "
                       "3 points (#1 #3 #7): lambda 990 msgs/s, sigma 0.1250, "
                       "kappa 0.00000; residuals 1:+10 2:-20 4:+10, standard "
                       "error 24 msgs/s (1 degree of freedom)\n"));
    CHECK(strstr(text, "extrapolated at 64 B: left out broker.io_threads=3 "
                       "(#5): starved\n"));
    CHECK(strstr(text, "extrapolated at 64 B: broker.io_threads = 6 would "
                       "carry 3500 msgs/s (the law gives 3600), beyond\n"));
    free(text);
    //  sizing.json's: the fit's columns, and its rows'
    json_t *fits = report_fit_json(&f, 1);
    CHECK(fits && json_array_size(fits) == 1);
    json_t *fit = json_array_get(fits, 0), *rows = json_object_get(fit, "rows");
    CHECK(json_integer_value(json_object_get(fit, "k_max")) == 4);
    CHECK(strcmp(jsondoc_get_text(fit, "law"), "Amdahl") == 0);
    CHECK(!json_object_get(fit, "residual_per_sec") &&
          json_array_size(rows) == 5);
    CHECK(json_number_value(json_object_get(json_array_get(rows, 1),
                                            "residual_per_sec")) == -20);
    CHECK(json_is_null(
        json_object_get(json_array_get(rows, 2), "residual_per_sec")));
    CHECK(strcmp(jsondoc_get_text(json_array_get(rows, 4), "kind"),
                 "predicted") == 0);
    json_decref(fits);
    return 0;
}
