/*  number: decimal numbers only (see number.h).  The text is checked
    against the decimal shape first, then converted by strtod, which the
    shape leaves nothing to misread.
*/
#include "base/number.h"

#include "base/check.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t s_digits(const char *p)
{
    return strspn(p, "0123456789");
}

//  The length of the decimal number at text's start, 0 when there is none
static size_t s_decimal(const char *text)
{
    const char *p = text;
    p += *p == '-' || *p == '+';
    size_t before = s_digits(p), after = 0;
    p += before;
    if (*p == '.') {
        after = s_digits(p + 1);
        p += 1 + after;
    }
    if (before + after == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        q += *q == '-' || *q == '+';
        size_t exponent = s_digits(q);
        if (exponent == 0)
            return 0;
        p = q + exponent;
    }
    return (size_t)(p - text);
}

int number_parse(const char *text, double *out)
{
    size_t len = s_decimal(text);
    if (len == 0 || text[len])
        return -1;
    errno = 0;
    double value = strtod(text, NULL);
    if (errno == ERANGE || !isfinite(value))
        return -1;
    *out = value;
    return 0;
}

bool number_whole(const char *text)
{
    text += *text == '-';
    return *text && s_digits(text) == strlen(text);
}

int number_test(bool verbose)
{
    (void)verbose;
    double v = -1;
    const char *good[] = {"0",  "16",  "-2.5", "+3",     ".5",
                          "5.", "1e3", "1E-3", "2.5e+2", NULL};
    const double want[] = {0, 16, -2.5, 3, 0.5, 5, 1000, 0.001, 250};
    for (int i = 0; good[i]; i++)
        CHECK(number_parse(good[i], &v) == 0 && v == want[i]);
    const char *bad[] = {"",      "0x10", "0X1p4", "inf", "nan", "-nan",
                         " 1",    "1 ",   "1e",    ".",   "e3",  "1.2.3",
                         "1e999", "--1",  "1,5",   "0x",  NULL};
    for (int i = 0; bad[i]; i++) {
        v = 42;
        CHECK(number_parse(bad[i], &v) == -1 && v == 42);
    }
    CHECK(number_whole("12") && number_whole("-3") && !number_whole("1.0"));
    CHECK(!number_whole("") && !number_whole("-") && !number_whole("0x1"));
    return 0;
}
