/*  roff: escaping and the man(7) requests the pages use; see roff.h.  */
#include "app/roff.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

enum {
    MARKUP = 1, //  backquotes switch bold on and off
    BREAKS = 2  //  a line may break after a comma
};

static void s_escaped(FILE *out, const char *text, unsigned how)
{
    bool bold = false, line_start = true;
    for (const char *p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        line_start = *p == '\n';
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else if (*p == '`' && (how & MARKUP))
            fputs((bold = !bold) ? "\\fB" : "\\fR", out);
        else
            fputc(*p, out);
        if (*p == ',' && (how & BREAKS))
            fputs("\\:", out);
    }
    if (bold)
        fputs("\\fR", out);
}

void roff_title(FILE *out, const char *name, int section, const char *date,
                const char *source, const char *manual)
{
    fprintf(out, ".TH \"%s\" \"%d\" \"%s\" \"%s\" \"%s\"\n", name, section,
            date, source, manual);
    //  ragged right, no hyphens: names, keys and options stay whole (HY:
    //  what an-ext's .EE and .YS restore)
    roff_request(out, ".ad l");
    roff_request(out, ".nr HY 0");
    roff_request(out, ".nh");
}

void roff_section(FILE *out, const char *title)
{
    fprintf(out, ".SH \"%s\"\n", title);
}

void roff_subsection(FILE *out, const char *title)
{
    fprintf(out, ".SS \"%s\"\n", title);
}

void roff_request(FILE *out, const char *request)
{
    fprintf(out, "%s\n", request);
}

void roff_text(FILE *out, const char *text)
{
    s_escaped(out, text, MARKUP);
}

void roff_font(FILE *out, char font, const char *text)
{
    fprintf(out, "\\f%c", font);
    s_escaped(out, text, 0);
    fputs("\\fR", out);
}

void roff_breakable(FILE *out, char font, const char *text)
{
    fprintf(out, "\\f%c", font);
    s_escaped(out, text, BREAKS);
    fputs("\\fR", out);
}

void roff_para(FILE *out, const char *text)
{
    roff_request(out, ".PP");
    roff_text(out, text);
    fputc('\n', out);
}

void roff_example(FILE *out, const char *text)
{
    roff_request(out, ".PP");
    roff_request(out, ".RS 4");
    roff_request(out, ".EX");
    s_escaped(out, text, 0);
    if (*text && text[strlen(text) - 1] != '\n')
        fputc('\n', out);
    roff_request(out, ".EE");
    roff_request(out, ".RE");
}

//  ---------------------------------------------------------------------
//  Selftest: what a string from a table becomes

static int s_expect(void (*print)(FILE *, const char *), const char *text,
                    const char *want)
{
    char *got = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&got, &len);
    if (!out)
        return -1;
    print(out, text);
    fclose(out);
    int rc = got && strcmp(got, want) == 0 ? 0 : -1;
    if (rc)
        fprintf(stderr, "roff: '%s' gave '%s', not '%s'\n", text,
                got ? got : "(nothing)", want);
    free(got);
    return rc;
}

static void s_bold_list(FILE *out, const char *text)
{
    roff_breakable(out, 'B', text);
}

int roff_test(bool verbose)
{
    (void)verbose;
    CHECK(s_expect(roff_text, "--set KEY=V", "\\-\\-set KEY=V") == 0);
    CHECK(s_expect(roff_text, "a `hop = ipc` line",
                   "a \\fBhop = ipc\\fR line") == 0);
    CHECK(s_expect(roff_text, "`unclosed", "\\fBunclosed\\fR") == 0);
    CHECK(s_expect(roff_text, ".cfg and 'x'", "\\&.cfg and 'x'") == 0);
    CHECK(s_expect(roff_text, "a\\b", "a\\eb") == 0);
    CHECK(s_expect(roff_example, "hop\n'quoted\n.dot",
                   ".PP\n.RS 4\n.EX\nhop\n\\&'quoted\n\\&.dot\n.EE\n.RE\n") ==
          0);
    CHECK(s_expect(roff_para, "x", ".PP\nx\n") == 0);
    CHECK(s_expect(s_bold_list, "a,b-c", "\\fBa,\\:b\\-c\\fR") == 0);
    return 0;
}
