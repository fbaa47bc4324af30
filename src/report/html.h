/*  html: writing the HTML report's text, escaped, with one look.

        html_page_begin(out, "hopbench report: proxy");
        html_section_begin(out, "results", "Per hop", "results.csv");
        html_table(out, rundir_file(run, &columns_threads));
        html_section_end(out);
        html_page_end(out);

    Every string from a file or a run goes through html_text; nothing
    here fetches anything: the style sheet and the one small script (it
    sorts a table when its header is clicked) are written inline, so the
    page reads offline, in colour or not, and prints with its tables
    whole (@media print).  The page's structure is the report_html_*
    modules'.
*/
#ifndef HOPBENCH_HTML_H
#define HOPBENCH_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"
#include "report/rundir.h"

//  text with & < > " ' as entities (and control bytes dropped)
void html_text(FILE *out, const char *text);
//  <tag class="cls">text</tag>; cls NULL: no class
void html_elem(FILE *out, const char *tag, const char *cls, const char *text);
//  The doctype, head with the style sheet, <body> and an <h1> of title
void html_page_begin(FILE *out, const char *title);
//  The sorting script and the end of the page
void html_page_end(FILE *out);
//  <section id=id> with its <h2> and a line naming the file it came from
//  (source NULL: no line)
void html_section_begin(FILE *out, const char *id, const char *title,
                        const char *source);
//  The same, its id after a prefix ("run2-": a page's second run)
void html_section_begin_as(FILE *out, const char *prefix, const char *id,
                           const char *title, const char *source);
void html_section_end(FILE *out);
//  A CSV file of a results directory as sortable tables that fit the page
//  (at 1024 px, and in print): what every row shares said once above,
//  long text (a sizing's why) on a line under its row, and the other
//  columns split into tables of at most ~900 px, each led by the first.
//  Every cell names its column (data-c) and line in the file (data-line)
#define HTML_COLUMNS 64 //  columns shown, at most
void html_table(FILE *out, const rundir_file_t *file);
//  ...of rows[0..n) of it (n > 0)
void html_rows(FILE *out, const rundir_file_t *file, const int *rows, int n);
//  Is text a number (so that its cell aligns right)?
bool html_is_number(const char *text);

int html_test(bool verbose);

#endif
