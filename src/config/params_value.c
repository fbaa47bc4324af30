/*  params_value: one key's value read from text and written back as text
    (params_set, params_format), and the levels' values laid over each
    other (params_overlay).  Reading is strict: numbers are decimal and in
    range, booleans true/false (also 1/0, yes/no, on/off), enums one of
    their names, lists without repeats; an error names the key, the value
    and what the key accepts.
*/
#include "config/params.h"

#include "base/number.h"

#include <ctype.h>
#include <string.h>

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

static int s_number(const option_t *opt, const char *value, double *out,
                    errbuf_t *err);

//  "0,0.005": each a number in range, none twice, at most
//  PARAMS_MAX_RATIOS; kept ascending
static int s_ratios(const option_t *opt, const char *value, ratios_t *out,
                    errbuf_t *err)
{
    ratios_t list = {0};
    char text[LIMIT_SET_TEXT + 1];
    if (!value[0] && !opt->fallback[0]) { //  a list empty by default
        *out = list;
        return 0;
    }
    snprintf(text, sizeof text, "%s", value);
    char *rest = text;
    for (char *item = strsep(&rest, ","); item; item = strsep(&rest, ",")) {
        double number;
        if (list.n == PARAMS_MAX_RATIOS)
            return err_set(err, "%s: more than %d ratios in '%s'", opt->name,
                           PARAMS_MAX_RATIOS, value);
        if (s_number(opt, item, &number, err))
            return -1;
        int at = list.n++;
        while (at > 0 && list.ratio[at - 1] > number) {
            list.ratio[at] = list.ratio[at - 1];
            at--;
        }
        if (at > 0 && list.ratio[at - 1] == number)
            return err_set(err, "%s: %s twice in '%s'", opt->name, item, value);
        list.ratio[at] = number;
    }
    *out = list;
    return 0;
}

//  Decimal digits, with a minus sign if you like: no exponent, no hex
static int s_number(const option_t *opt, const char *value, double *out,
                    errbuf_t *err)
{
    double number = 0;
    bool whole = opt->type != TYPE_DOUBLE && opt->type != TYPE_RATIOS;
    if (number_parse(value, &number) || (whole && !number_whole(value)))
        return err_set(err, "%s must be %s, not '%s'", opt->name,
                       whole ? "a whole number" : "a number", value);
    if (opt->below && (number < opt->min || number >= opt->max))
        return err_set(err,
                       "%s must be at least %.15g and less than %.15g, not "
                       "'%s'",
                       opt->name, opt->min, opt->max, value);
    if (number < opt->min || number > opt->max)
        return err_set(err, "%s must be between %.15g and %.15g, not '%s'",
                       opt->name, opt->min, opt->max, value);
    *out = number;
    return 0;
}

static int s_string(const option_t *opt, const char *value, char *out,
                    errbuf_t *err)
{
    bool limit = opt->limit && *opt->limit;
    if (strlen(value) >= opt->length)
        return err_set(err, "%s is longer than %zu characters%s%s%s", opt->name,
                       opt->length - 1, limit ? " (" : "",
                       limit ? opt->limit : "",
                       limit ? ", docs/LIMITS.md)" : "");
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
    case TYPE_RATIOS:
        if (s_ratios(opt, value, field, err))
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
    case TYPE_RATIOS:
        params_format_ratios(field, buf, len);
        break;
    }
}

void params_format_ratios(const ratios_t *list, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < list->n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%.10g",
                                 i ? "," : "", list->ratio[i]);
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
                      : opt->type == TYPE_RATIOS ? sizeof(ratios_t)
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
