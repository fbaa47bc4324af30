/*  html: the report's text, escaped, and its look; see html.h.

    The style sheet says everything with text and borders first, colour
    second: a flag reads "starved" in a framed box, in black and white
    too.  @media print keeps a table (and a figure) on one page where it
    fits, and repeats a long table's header.  The script sorts a table
    of class "sort" by the column whose header is clicked, numbers as
    numbers; it fetches nothing and the page works without it.
*/
#include "report/html.h"

#include "base/number.h"

#include <string.h>

void html_text(FILE *out, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '&')
            fputs("&amp;", out);
        else if (*p == '<')
            fputs("&lt;", out);
        else if (*p == '>')
            fputs("&gt;", out);
        else if (*p == '"')
            fputs("&quot;", out);
        else if (*p == '\'')
            fputs("&#39;", out);
        else if (*p >= ' ' || *p == '\n' || *p == '\t')
            fputc(*p, out);
    }
}

void html_elem(FILE *out, const char *tag, const char *cls, const char *text)
{
    if (cls)
        fprintf(out, "<%s class=\"%s\">", tag, cls);
    else
        fprintf(out, "<%s>", tag);
    html_text(out, text);
    fprintf(out, "</%s>\n", tag);
}

static const char s_style[] =
    "body{font:14px/1.45 sans-serif;margin:1.5em auto;max-width:1200px;"
    "padding:0 1em;color:#111;background:#fff}\n"
    "h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.4em 0 "
    ".3em;border-bottom:2px solid #444}h3{font-size:1.05em;margin:1em 0 .3em}\n"
    ".src{font-size:.85em;color:#444;margin:.1em 0 .6em}"
    ".src code{background:#eee;padding:0 .3em}\n"
    "table{border-collapse:collapse;margin:.4em 0 1em;font-size:.9em}\n"
    "th,td{border:1px solid #999;padding:.15em .5em;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#e8e8e8}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    "table.sort th{cursor:pointer}\n"
    "pre{background:#f6f6f6;border:1px solid #ccc;padding:.6em;overflow-x:"
    "auto;font-size:.9em}\n"
    ".flag{display:inline-block;border:1.5px solid #000;padding:0 .3em;"
    "margin:0 .15em;font-size:.8em;font-weight:bold;background:#fff3c4}\n"
    ".flag.bad{background:#f8d0d0;border-style:double;border-width:3px}\n"
    ".answer{font-size:1.15em;border:2px solid #000;padding:.5em;"
    "background:#eef6ee}\n"
    ".warn{border-left:6px solid #000;padding:.2em .6em;background:#fff3c4;"
    "margin:.3em 0}\n"
    ".sig{font-weight:bold}.ns{color:#555}\n"
    "figure{margin:.6em 0 1.2em}figure svg{max-width:100%;height:auto;"
    "border:1px solid #ccc}figcaption{font-size:.85em;color:#444}\n"
    "nav a{margin-right:1em}\n"
    "@media print{body{max-width:none;font-size:11px}nav{display:none}"
    "table,figure,pre,.answer{break-inside:avoid;page-break-inside:avoid}"
    "thead{display:table-header-group}tr{break-inside:avoid}"
    "h2,h3{break-after:avoid;page-break-after:avoid}"
    ".flag{background:none}}\n";

//  Click a header of a table.sort: its rows sorted by that column, numbers
//  as numbers, again to reverse
static const char s_script[] =
    "document.querySelectorAll('table.sort').forEach(function(t){\n"
    " t.querySelectorAll('thead th').forEach(function(th,i){\n"
    "  th.addEventListener('click',function(){\n"
    "   var b=t.tBodies[0],r=Array.from(b.rows),d=th.dataset.d==='1'?-1:1;\n"
    "   th.dataset.d=d===1?'1':'0';\n"
    "   function v(x){var s=x.cells[i]?x.cells[i].dataset.v||"
    "x.cells[i].textContent:'';\n"
    "    var f=parseFloat(s.replace(/,/g,''));return isNaN(f)?s:f;}\n"
    "   r.sort(function(x,y){var a=v(x),c=v(y);if(typeof a===typeof c)"
    "return a<c?-d:a>c?d:0;return typeof a==='number'?-d:d;});\n"
    "   r.forEach(function(x){b.appendChild(x);});});});});\n";

void html_page_begin(FILE *out, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n<meta name=\"viewport\" "
          "content=\"width=device-width, initial-scale=1\">\n",
          out);
    html_elem(out, "title", NULL, title);
    fprintf(out, "<style>\n%s</style>\n</head>\n<body>\n", s_style);
    html_elem(out, "h1", NULL, title);
}

void html_page_end(FILE *out)
{
    fprintf(out, "<script>\n%s</script>\n</body>\n</html>\n", s_script);
}

void html_section_begin(FILE *out, const char *id, const char *title,
                        const char *source)
{
    fprintf(out, "<section id=\"%s\">\n", id);
    html_elem(out, "h2", NULL, title);
    if (source) {
        fputs("<p class=\"src\">from <code>", out);
        html_text(out, source);
        fputs("</code></p>\n", out);
    }
}

void html_section_begin_as(FILE *out, const char *prefix, const char *id,
                           const char *title, const char *source)
{
    char full[80];
    snprintf(full, sizeof full, "%s%s", prefix, id);
    html_section_begin(out, full, title, source);
}

void html_section_end(FILE *out)
{
    fputs("</section>\n", out);
}

bool html_is_number(const char *text)
{
    double v;
    return *text && number_parse(text, &v) == 0;
}

//  A row of cells (header: of <th>), numbers aligned right
static void s_row(FILE *out, const rundir_file_t *file, int row, bool header)
{
    fputs("<tr>", out);
    for (int c = 0; c < rundir_ncolumns(file); c++) {
        const char *f =
            header ? rundir_name(file, c) : rundir_cell(file, row, c);
        fputs(header              ? "<th>"
              : html_is_number(f) ? "<td class=\"n\">"
                                  : "<td>",
              out);
        html_text(out, f);
        fputs(header ? "</th>" : "</td>", out);
    }
    fputs("</tr>\n", out);
}

void html_table(FILE *out, const rundir_file_t *file)
{
    fputs("<table class=\"sort\">\n<thead>", out);
    s_row(out, file, 0, true);
    fputs("</thead>\n<tbody>\n", out);
    for (int r = 0; r < rundir_nrows(file); r++)
        s_row(out, file, r, false);
    fputs("</tbody>\n</table>\n", out);
}

//  ---------------------------------------------------------------------
//  Selftest

#include "base/check.h"

#include <stdlib.h>

int html_test(bool verbose)
{
    (void)verbose;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    html_text(out, "a<b & \"c\" 'd'>\x01");
    fclose(out);
    CHECK(strcmp(text, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;") == 0);
    free(text);
    CHECK(html_is_number("1822722.2") && html_is_number("-1"));
    CHECK(!html_is_number("") && !html_is_number("tcp"));
    return 0;
}
