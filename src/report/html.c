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

#include <stdlib.h>
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
    "h1{font-size:1.5em;margin:.2em 0;overflow-wrap:anywhere}"
    "h2{font-size:1.25em;margin:1.4em 0 .3em;border-bottom:2px solid #444}"
    "h3{font-size:1.05em;margin:1em 0 .3em}\n"
    ".src{font-size:.85em;color:#444;margin:.1em 0 .6em}"
    ".src code{background:#eee;padding:0 .3em}\n"
    "table{border-collapse:collapse;margin:.4em 0 1em;font-size:13px;"
    "max-width:100%}\n"
    "th,td{border:1px solid #999;padding:.15em .4em;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#e8e8e8;font-weight:bold}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tr.more td{font-size:.92em;color:#222;overflow-wrap:anywhere;"
    "border-top:none;background:#fafafa}\n"
    "table.sort th{cursor:pointer}\n"
    "div.kv{display:grid;grid-template-columns:repeat(auto-fill,"
    "minmax(17em,1fr));gap:.1em 1em;font-size:.92em;margin:.3em 0}"
    "div.kv div{overflow-wrap:anywhere}\n"
    "table.kv th{background:none;border:none;white-space:nowrap;"
    "padding-right:.8em}table.kv td{border:none}table.kv{margin:.2em 0 .6em}\n"
    "p.shared{font-size:.9em;color:#333}\n"
    "pre{background:#f6f6f6;border:1px solid #ccc;padding:.6em;overflow-x:"
    "auto;font-size:.9em;white-space:pre-wrap}\n"
    ".flag{display:inline-block;border:1.5px solid #000;padding:0 .3em;"
    "margin:0 .15em;font-size:.8em;font-weight:bold;background:#fff3c4}\n"
    ".flag.bad{background:#f8d0d0;border-style:double;border-width:3px}\n"
    ".answer{border:2px solid #000;padding:.3em .7em;background:#eef6ee;"
    "margin:.5em 0}.answer p{margin:.4em 0}\n"
    ".warn{border-left:6px solid #000;padding:.2em .6em;background:#fff3c4;"
    "margin:.3em 0}.warn.status{font-weight:bold;font-size:1.1em}\n"
    ".sig{font-weight:bold}.ns{color:#555}\n"
    "details summary{cursor:pointer;color:#333;margin:.2em 0}\n"
    "figure{margin:.6em 0 1.2em}figure svg{max-width:100%;height:auto;"
    "border:1px solid #ccc}figcaption{font-size:.85em;color:#444}\n"
    "nav{margin:.5em 0}nav a{margin-right:1em}\n"
    "@media print{body{max-width:none;margin:0;font-size:10px}"
    "nav{display:none}table{font-size:9px}"
    "details>*{display:block}details summary{display:none}"
    "table,figure,pre,.answer{break-inside:avoid;page-break-inside:avoid}"
    "thead{display:table-header-group}tr{break-inside:avoid}"
    "h2,h3{break-after:avoid;page-break-after:avoid}"
    ".flag{background:none}}\n";

//  Click a header of a table.sort: its rows sorted by that column, numbers
//  as numbers, again to reverse; a row's lines under it (tr.more) go with
//  it
static const char s_script[] =
    "document.querySelectorAll('table.sort').forEach(function(t){\n"
    " t.querySelectorAll('thead th').forEach(function(th,i){\n"
    "  th.addEventListener('click',function(){\n"
    "   var b=t.tBodies[0],d=th.dataset.d==='1'?-1:1;\n"
    "   var r=Array.from(b.rows).filter(function(x){"
    "return !x.classList.contains('more');});\n"
    "   var m=r.map(function(x){var a=[],n=x.nextElementSibling;"
    "while(n&&n.classList.contains('more')){a.push(n);"
    "n=n.nextElementSibling;}return a;});\n"
    "   th.dataset.d=d===1?'1':'0';\n"
    "   function v(x){var s=x.cells[i]?x.cells[i].dataset.v||"
    "x.cells[i].textContent:'';\n"
    "    var f=parseFloat(s.replace(/,/g,''));return isNaN(f)?s:f;}\n"
    "   var k=r.map(function(x,j){return j;});\n"
    "   k.sort(function(x,y){var a=v(r[x]),c=v(r[y]);if(typeof a===typeof c)"
    "return a<c?-d:a>c?d:0;return typeof a==='number'?-d:d;});\n"
    "   k.forEach(function(j){b.appendChild(r[j]);m[j].forEach(function(y){"
    "b.appendChild(y);});});});});});\n";

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

//  ---------------------------------------------------------------------
//  A file as tables that fit: a page is HTML_WIDTH px wide at 1024 px, and
//  so, smaller, in print

#define HTML_WIDTH 860 //  px a table may take
#define HTML_LONG  40  //  a text cell longer: a line under its row

//  How wide a column is in px (13 px type, at most ~8 px a character, and
//  its padding): its widest cell, or its heading's longest word (it wraps
//  after a '_')
static int s_width(const rundir_file_t *file, const int *rows, int n, int c)
{
    int chars = 0, word = 0;
    for (const char *p = rundir_name(file, c); *p; p++) {
        word = *p == '_' ? 0 : word + 1;
        chars = word > chars ? word : chars;
    }
    for (int r = 0; r < n; r++) {
        int len = (int)strlen(rundir_cell(file, rows[r], c));
        chars = len > chars ? len : chars;
    }
    return chars * 8 + 16;
}

//  Is every row's cell of column c the same?  A long text one?
static bool s_constant(const rundir_file_t *file, const int *rows, int n, int c)
{
    for (int r = 1; r < n; r++)
        if (strcmp(rundir_cell(file, rows[r], c),
                   rundir_cell(file, rows[0], c)))
            return false;
    return true;
}
static bool s_long(const rundir_file_t *file, const int *rows, int n, int c)
{
    for (int r = 0; r < n; r++) {
        const char *text = rundir_cell(file, rows[r], c);
        if (strlen(text) > HTML_LONG && !html_is_number(text))
            return true;
    }
    return false;
}

//  A cell, its column's name in data-c and the file's line in data-line
static void s_cell(FILE *out, const rundir_file_t *file, int row, int c)
{
    const char *text = rundir_cell(file, row, c);
    fprintf(out, "<td data-c=\"%s\" data-line=\"%d\"%s>", rundir_name(file, c),
            rundir_line(file, row), html_is_number(text) ? " class=\"n\"" : "");
    html_text(out, text);
    fputs("</td>", out);
}

//  A heading that wraps at its '_'
static void s_heading(FILE *out, const char *name)
{
    fputs("<th>", out);
    for (const char *p = name; *p; p++)
        fputs(*p == '_' ? "_<wbr>" : (char[]){*p, 0}, out);
    fputs("</th>", out);
}

//  One table of the columns cols[0..ncols), then the long ones under each
//  row
static void s_part(FILE *out, const rundir_file_t *file, const int *rows, int n,
                   const int *cols, int ncols, const int *lines, int nlines)
{
    fputs("<table class=\"sort fit\">\n<thead><tr>", out);
    for (int c = 0; c < ncols; c++)
        s_heading(out, rundir_name(file, cols[c]));
    fputs("</tr></thead>\n<tbody>\n", out);
    for (int r = 0; r < n; r++) {
        fputs("<tr>", out);
        for (int c = 0; c < ncols; c++)
            s_cell(out, file, rows[r], cols[c]);
        fputs("</tr>\n", out);
        for (int l = 0; l < nlines; l++) {
            if (!*rundir_cell(file, rows[r], lines[l]))
                continue;
            fprintf(out, "<tr class=\"more\"><td colspan=\"%d\"><b>", ncols);
            html_text(out, rundir_name(file, lines[l]));
            fputs(":</b> ", out);
            fprintf(out, "<span data-c=\"%s\" data-line=\"%d\">",
                    rundir_name(file, lines[l]), rundir_line(file, rows[r]));
            html_text(out, rundir_cell(file, rows[r], lines[l]));
            fputs("</span></td></tr>\n", out);
        }
    }
    fputs("</tbody>\n</table>\n", out);
}

//  What every row shares, once, above the table
static void s_shared(FILE *out, const rundir_file_t *file, int row,
                     const int *cols, int n)
{
    if (n == 0)
        return;
    fputs("<p class=\"shared\">every row: ", out);
    for (int c = 0; c < n; c++) {
        fputs(c ? ", " : "", out);
        html_text(out, rundir_name(file, cols[c]));
        fprintf(out, " <span data-c=\"%s\" data-line=\"%d\">",
                rundir_name(file, cols[c]), rundir_line(file, row));
        html_text(out, rundir_cell(file, row, cols[c]));
        fputs("</span>", out);
    }
    fputs("</p>\n", out);
}

void html_rows(FILE *out, const rundir_file_t *file, const int *rows, int n)
{
    int ncols = rundir_ncolumns(file), shared[HTML_COLUMNS], nshared = 0;
    int lines[HTML_COLUMNS], nlines = 0, rest[HTML_COLUMNS], nrest = 0;
    for (int c = 0; c < ncols && c < HTML_COLUMNS; c++) {
        bool constant = s_constant(file, rows, n, c);
        if (constant && !*rundir_cell(file, rows[0], c))
            continue; //  no value in any row: nothing to show
        if (n > 1 && constant)
            shared[nshared++] = c;
        else if (s_long(file, rows, n, c))
            lines[nlines++] = c;
        else
            rest[nrest++] = c;
    }
    if (nrest == 0) //  every column alike: they are the table
        memcpy(rest, shared, sizeof rest), nrest = nshared, nshared = 0;
    s_shared(out, file, rows[0], shared, nshared);
    //  the rest in parts of at most HTML_WIDTH px, each led by the first
    for (int a = 0, b; a < nrest; a = b) {
        int part[HTML_COLUMNS], np = 0, width = 0;
        if (a > 0)
            part[np++] = rest[0], width = s_width(file, rows, n, rest[0]);
        for (b = a; b < nrest; b++) {
            int w = s_width(file, rows, n, rest[b]);
            if (np > (a > 0) && width + w > HTML_WIDTH)
                break;
            part[np++] = rest[b], width += w;
        }
        if (b == a) //  no room even for one: it goes alone
            part[np++] = rest[b++];
        s_part(out, file, rows, n, part, np, lines, b >= nrest ? nlines : 0);
    }
}

void html_table(FILE *out, const rundir_file_t *file)
{
    int n = rundir_nrows(file);
    int *rows = n ? malloc((size_t)n * sizeof *rows) : NULL;
    if (n && !rows) {
        fputs("<p class=\"warn\">out of memory</p>\n", out);
        return;
    }
    for (int r = 0; r < n; r++)
        rows[r] = r;
    if (n)
        html_rows(out, file, rows, n);
    else
        fputs("<p>No rows.</p>\n", out);
    free(rows);
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
