/*  sweep: parse --sweep options and walk their product (see sweep.h).  */
#include "config/sweep.h"

#include "base/check.h"

#include <stdio.h>
#include <string.h>

static int s_parse_one(sweep_t *self, const char *spec, const char *option,
                       errbuf_t *err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return err_set(err, "%s %s: expected KEY=V1,V2,...", option, spec);
    int k = self->nkeys;
    if (k == SWEEP_MAX_KEYS)
        return err_set(err,
                       "%s %.100s: more than %d keys "
                       "(LIMIT_SWEEP_KEYS, docs/LIMITS.md)",
                       option, spec, SWEEP_MAX_KEYS);
    if ((size_t)(eq - spec) >= sizeof self->key[k])
        return err_set(err,
                       "%s %.100s: a key longer than %d characters "
                       "(LIMIT_SWEEP_KEY)",
                       option, spec, LIMIT_SWEEP_KEY);
    snprintf(self->key[k], sizeof self->key[k], "%.*s", (int)(eq - spec), spec);
    snprintf(self->option[k], sizeof self->option[k], "%s", option);
    for (int j = 0; j < k; j++)
        if (strcmp(self->key[j], self->key[k]) == 0)
            return err_set(err, "%s %s: %s is given twice (one %s per key)",
                           option, spec, self->key[k], option);
    for (const char *p = eq + 1;;) {
        size_t len = strcspn(p, ",");
        int n = self->nvalues[k];
        if (len == 0)
            return err_set(err, "%s %s: an empty value", option, spec);
        if (n == SWEEP_MAX_VALUES)
            return err_set(err,
                           "%s %.100s: more than %d values "
                           "(LIMIT_SWEEP_VALUES, docs/LIMITS.md)",
                           option, spec, SWEEP_MAX_VALUES);
        if (len >= sizeof self->value[k][n])
            return err_set(err,
                           "%s %.100s: value '%.20s...' is longer than "
                           "%d characters (LIMIT_SWEEP_VALUE)",
                           option, spec, p, LIMIT_SWEEP_VALUE);
        snprintf(self->value[k][n], sizeof self->value[k][n], "%.*s", (int)len,
                 p);
        self->nvalues[k]++;
        if (!p[len])
            break;
        p += len + 1;
    }
    self->nkeys++;
    return 0;
}

int sweep_parse(sweep_t *self, const char *const *specs, int n,
                const char *option, errbuf_t *err)
{
    memset(self, 0, sizeof *self);
    for (int i = 0; i < n; i++)
        if (s_parse_one(self, specs[i], option, err))
            return -1;
    if (sweep_count(self) > SWEEP_MAX_COMBOS)
        return err_set(err,
                       "%s: more than %d combinations of the values "
                       "(LIMIT_SWEEP_COMBOS, docs/LIMITS.md)",
                       option, SWEEP_MAX_COMBOS);
    return 0;
}

int sweep_add(sweep_t *self, const char *key, const char *const *values, int n,
              const char *option, errbuf_t *err)
{
    int k = self->nkeys;
    if (k == SWEEP_MAX_KEYS || n < 1 || n > SWEEP_MAX_VALUES ||
        strlen(key) > LIMIT_SWEEP_KEY)
        return err_set(err,
                       "%s: %d values of %s, with %d keys swept already "
                       "(LIMIT_SWEEP_KEYS, LIMIT_SWEEP_VALUES, docs/LIMITS.md)",
                       option, n, key, k);
    for (int v = 0; v < n; v++) {
        if (strlen(values[v]) > LIMIT_SWEEP_VALUE)
            return err_set(err,
                           "%s: %s value '%.20s...' is longer than %d "
                           "characters (LIMIT_SWEEP_VALUE)",
                           option, key, values[v], LIMIT_SWEEP_VALUE);
        snprintf(self->value[k][v], sizeof self->value[k][v], "%s", values[v]);
    }
    snprintf(self->key[k], sizeof self->key[k], "%s", key);
    snprintf(self->option[k], sizeof self->option[k], "%s", option);
    self->nvalues[k] = n;
    self->nkeys++;
    if (sweep_count(self) > SWEEP_MAX_COMBOS)
        return err_set(err,
                       "%s: more than %d combinations of the swept values "
                       "(LIMIT_SWEEP_COMBOS, docs/LIMITS.md)",
                       option, SWEEP_MAX_COMBOS);
    return 0;
}

bool sweep_has(const sweep_t *self, const char *key)
{
    for (int k = 0; k < self->nkeys; k++)
        if (strcmp(self->key[k], key) == 0)
            return true;
    return false;
}

int sweep_count(const sweep_t *self)
{
    long count = 1;
    for (int k = 0; k < self->nkeys; k++) {
        count *= self->nvalues[k];
        if (count > SWEEP_MAX_COMBOS)
            return SWEEP_MAX_COMBOS + 1;
    }
    return (int)count;
}

void sweep_values(const sweep_t *self, int index, const char **values)
{
    for (int k = self->nkeys - 1; k >= 0; k--) {
        values[k] = self->value[k][index % self->nvalues[k]];
        index /= self->nvalues[k];
    }
}

void sweep_describe(const sweep_t *self, int index, char *buf, size_t len)
{
    const char *values[SWEEP_MAX_KEYS];
    size_t used = 0;
    sweep_values(self, index, values);
    buf[0] = 0;
    for (int k = 0; k < self->nkeys && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
                                 k ? " " : "", self->key[k], values[k]);
}

void sweep_assignment(const sweep_t *self, int index, int k, char *buf,
                      size_t len)
{
    const char *values[SWEEP_MAX_KEYS];
    sweep_values(self, index, values);
    snprintf(buf, len, "%s=%s", self->key[k], values[k]);
}

int sweep_test(bool verbose)
{
    (void)verbose;
    sweep_t sweep;
    errbuf_t err;
    const char *specs[] = {"transport=inproc,ipc,tcp", "hwm=10,1000"};
    CHECK(sweep_parse(&sweep, specs, 2, "--sweep", &err) == 0);
    CHECK(sweep.nkeys == 2 && sweep_count(&sweep) == 6);
    const char *values[SWEEP_MAX_KEYS];
    sweep_values(&sweep, 0, values);
    CHECK(strcmp(values[0], "inproc") == 0 && strcmp(values[1], "10") == 0);
    sweep_values(&sweep, 5, values);
    CHECK(strcmp(values[0], "tcp") == 0 && strcmp(values[1], "1000") == 0);
    char buf[200];
    sweep_assignment(&sweep, 3, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "transport=ipc") == 0);
    sweep_describe(&sweep, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "transport=ipc hwm=1000") == 0);

    //  A key added by another option: the last, varying fastest
    const char *nodes[] = {"0+0", "0+1"};
    CHECK(sweep_add(&sweep, "nodes", nodes, 2, "--placement all", &err) == 0);
    CHECK(sweep_count(&sweep) == 12 && sweep_has(&sweep, "nodes"));
    sweep_describe(&sweep, 1, buf, sizeof buf);
    CHECK(strcmp(buf, "transport=inproc hwm=10 nodes=0+1") == 0);
    CHECK(strcmp(sweep.option[2], "--placement all") == 0);
    CHECK(strcmp(sweep.option[0], "--sweep") == 0);

    CHECK(sweep_parse(&sweep, NULL, 0, "--sweep", &err) == 0 &&
          sweep_count(&sweep) == 1);
    sweep_describe(&sweep, 0, buf, sizeof buf);
    CHECK(buf[0] == 0);
    const char *bad[][1] = {{"transport"}, {"=a"}, {"k="}, {"k=a,,b"}};
    for (int i = 0; i < 4; i++)
        CHECK(sweep_parse(&sweep, bad[i], 1, "--sweep", &err) == -1);
    const char *twice[] = {"hwm=1", "hwm=2"};
    CHECK(sweep_parse(&sweep, twice, 2, "--sweep", &err) == -1);
    CHECK(strcmp(err.msg, "--sweep hwm=2: hwm is given twice (one --sweep per "
                          "key)") == 0);
    //  Messages name the option that gave the values, as it is spelt
    CHECK(sweep_parse(&sweep, twice, 2, "--try", &err) == -1);
    CHECK(strncmp(err.msg, "--try hwm=2: hwm is given twice", 31) == 0);

    //  The limits, each named
    char many[SWEEP_MAX_VALUES * 4 + 8] = "hwm=1";
    for (int v = 2; v <= SWEEP_MAX_VALUES + 1; v++)
        snprintf(many + strlen(many), sizeof many - strlen(many), ",%d", v);
    const char *values_past[] = {many};
    CHECK(sweep_parse(&sweep, values_past, 1, "--try", &err) == -1);
    CHECK(strncmp(err.msg, "--try hwm=1,2,", 14) == 0 &&
          strstr(err.msg, ": more than 64 values (LIMIT_SWEEP_VALUES"));
    const char *combos[] = {"a=1,2,3,4", "b=1,2,3,4", "c=1,2,3,4",
                            "d=1,2,3,4", "e=1,2,3,4", "f=1,2,3,4"};
    CHECK(sweep_parse(&sweep, combos, 5, "--sweep", &err) == 0);
    CHECK(sweep_count(&sweep) == 1024);
    CHECK(sweep_parse(&sweep, combos, 6, "--sweep", &err) == -1);
    CHECK(strstr(err.msg, "--sweep: more than 1024 combinations"));
    return 0;
}
