/*  errbuf: a message formatted whole, escaped, then cut to fit (see
    errbuf.h).  The whole message is formatted first (vasprintf), so a cut
    can keep its end; the cut falls between UTF-8 characters.
*/
#define _GNU_SOURCE
#include "base/errbuf.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

//  Control characters as C writes them; what fits of text into out
static size_t s_escape(const char *text, char *out, size_t cap)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        char one[8] = {(char)*p, 0};
        if (*p == '\n' || *p == '\t' || *p == '\r')
            snprintf(one, sizeof one, "\\%c",
                     *p == '\n'   ? 'n'
                     : *p == '\t' ? 't'
                                  : 'r');
        else if (*p < 0x20 || *p == 0x7f)
            snprintf(one, sizeof one, "\\x%02x", *p);
        size_t len = strlen(one);
        if (n + len >= cap)
            break;
        memcpy(out + n, one, len);
        n += len;
    }
    out[n] = 0;
    return n;
}

//  Back from at to the start of a UTF-8 character
static size_t s_boundary(const char *text, size_t at)
{
    while (at > 0 && ((unsigned char)text[at] & 0xC0) == 0x80)
        at--;
    return at;
}

//  The start and the end of text, " ... " between, into msg
static void s_cut(const char *text, size_t len, char *msg)
{
    static const char gap[] = " ... ";
    size_t keep = ERRBUF_MAX - (sizeof gap - 1);
    size_t head = s_boundary(text, keep / 3);
    //  forward to a character's start: never more than keep in all
    size_t tail = len - (keep - head);
    while (tail < len && ((unsigned char)text[tail] & 0xC0) == 0x80)
        tail++;
    memcpy(msg, text, head);
    memcpy(msg + head, gap, sizeof gap - 1);
    memcpy(msg + head + sizeof gap - 1, text + tail, len - tail);
    msg[head + sizeof gap - 1 + len - tail] = 0;
}

int err_vset(errbuf_t *err, const char *fmt, va_list ap)
{
    if (!err)
        return -1;
    err->host[0] = err->stage[0] = 0;
    err->lost = false;
    err->reason = 0;
    char *whole = NULL;
    if (vasprintf(&whole, fmt, ap) < 0) {
        snprintf(err->msg, sizeof err->msg, "%s (out of memory)", fmt);
        return -1;
    }
    //  at most 4 bytes for each: "\x1b"
    size_t cap = 4 * strlen(whole) + 1;
    char *escaped = malloc(cap);
    size_t len = escaped ? s_escape(whole, escaped, cap) : 0;
    if (!escaped)
        snprintf(err->msg, sizeof err->msg, "%s", whole);
    else if (len <= ERRBUF_MAX)
        memcpy(err->msg, escaped, len + 1);
    else
        s_cut(escaped, len, err->msg);
    free(escaped);
    free(whole);
    return -1;
}

int err_set(errbuf_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, fmt, ap);
    va_end(ap);
    return -1;
}

int err_prefix(errbuf_t *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char *prefix = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&prefix, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1; //  out of memory: the message as it was
    errbuf_t was = *err;
    err_set(err, "%s%s", prefix, was.msg);
    memcpy(err->host, was.host, sizeof err->host);
    memcpy(err->stage, was.stage, sizeof err->stage);
    err->lost = was.lost;
    //  the reason is the message's end; when the whole was cut in its
    //  middle, it starts after the prefix (the start is kept)
    size_t len = strlen(err->msg), tail = strlen(err_reason(&was));
    size_t at = len >= tail && len - tail >= strlen(prefix)
                    ? len - tail
                    : strlen(prefix) + (size_t)was.reason;
    err->reason = (int)(at < len ? at : len);
    free(prefix);
    return -1;
}

int err_host(errbuf_t *err, const char *host)
{
    if (err)
        snprintf(err->host, sizeof err->host, "%s", host);
    return err_prefix(err, "host %s: ", host);
}

int err_stage(errbuf_t *err, const char *stage)
{
    if (err)
        snprintf(err->stage, sizeof err->stage, "%s", stage);
    return err_prefix(err, "stage %s: ", stage);
}

void err_gather(errbuf_t *all, int *failed, const errbuf_t *one)
{
    if ((*failed)++ == 0) {
        *all = *one;
        return;
    }
    errbuf_t was = *all;
    err_set(all, "%s; %s", was.msg, one->msg);
    memcpy(all->host, was.host, sizeof all->host);
    memcpy(all->stage, was.stage, sizeof all->stage);
    all->lost = was.lost;
    all->reason = was.reason;
}

const char *err_reason(const errbuf_t *err)
{
    size_t len = strlen(err->msg);
    return err->msg + (err->reason > 0 && (size_t)err->reason <= len
                           ? (size_t)err->reason
                           : 0);
}

int errbuf_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    CHECK(err_set(&err, "%s:%d: %s", "t.cfg", 7, "why") == -1);
    CHECK(strcmp(err.msg, "t.cfg:7: why") == 0);
    CHECK(err_set(NULL, "nothing") == -1);
    err_set(&err, "--set %s: unknown", "tr\x1b[31mansport=\ttcp\n");
    CHECK(strcmp(err.msg, "--set tr\\x1b[31mansport=\\ttcp\\n: unknown") == 0);
    //  a long value: its middle goes, where and why stay
    char value[3000];
    memset(value, 'x', sizeof value - 1);
    value[sizeof value - 1] = 0;
    value[1500] = '#';
    err_set(&err, "t.cfg:2: unknown key '%s' (see --help-keys)", value);
    CHECK(strlen(err.msg) == ERRBUF_MAX);
    CHECK(strncmp(err.msg, "t.cfg:2: unknown key 'xxx", 25) == 0);
    CHECK(strstr(err.msg, "xxx ... xxx"));
    CHECK(!strchr(err.msg, '#'));
    const char *end = "xxx' (see --help-keys)";
    CHECK(strcmp(err.msg + strlen(err.msg) - strlen(end), end) == 0);
    //  a cut never splits a UTF-8 character
    char utf8[3001] = "";
    for (int i = 0; i < 1000; i++)
        strcat(utf8, "\xc3\xa9");
    err_set(&err, "'%s': why", utf8);
    char *gap = strstr(err.msg, " ... ");
    CHECK(gap && ((unsigned char)gap[-1] == 0xa9) &&
          (unsigned char)gap[5] == 0xc3);
    CHECK(strcmp(err.msg + strlen(err.msg) - 6, "': why") == 0);
    CHECK(strlen(err.msg) <= ERRBUF_MAX);
    //  where as fields: said before the reason, which stays apart
    err_set(&err, "no COUNTS within %.1f s", 2.0);
    CHECK(!err.host[0] && !err.stage[0] && !err.lost);
    CHECK(err_host(&err, "h2") == -1 && err_stage(&err, "broker") == -1);
    CHECK(strcmp(err.msg, "stage broker: host h2: no COUNTS within 2.0 s") ==
          0);
    CHECK(strcmp(err.host, "h2") == 0 && strcmp(err.stage, "broker") == 0);
    CHECK(strcmp(err_reason(&err), "no COUNTS within 2.0 s") == 0);
    err.lost = true;
    err_prefix(&err, "(then) ");
    CHECK(err.lost && strcmp(err_reason(&err), "no COUNTS within 2.0 s") == 0);
    err_set(&err, "another");
    CHECK(!err.host[0] && !err.stage[0] && !err.lost &&
          strcmp(err_reason(&err), "another") == 0);
    //  failures of one step gathered: the first's fields, every one's words
    errbuf_t all, one;
    int failed = 0;
    err_set(&one, "no STARTED within 12.0 s");
    err_host(&one, "h3");
    err_stage(&one, "sub.1");
    err_gather(&all, &failed, &one);
    err_set(&one, "its agent closed the connection");
    err_host(&one, "h4");
    one.lost = true;
    err_gather(&all, &failed, &one);
    CHECK(failed == 2 && !all.lost && strcmp(all.host, "h3") == 0 &&
          strcmp(all.stage, "sub.1") == 0);
    CHECK(strcmp(all.msg, "stage sub.1: host h3: no STARTED within 12.0 s; "
                          "host h4: its agent closed the connection") == 0);
    CHECK(strncmp(err_reason(&all), "no STARTED", 10) == 0);
    //  a long reason is cut in its middle; its place stays in the message
    err_set(&err, "%s", value);
    err_stage(&err, "sub");
    CHECK(strncmp(err.msg, "stage sub: xxx", 14) == 0);
    CHECK(err_reason(&err) >= err.msg && *err_reason(&err) == 'x');
    return 0;
}
