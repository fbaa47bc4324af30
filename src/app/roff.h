/*  roff: the few pieces of man(7) that hopbench's pages are written with.

    The pages are made from the program's tables, so their words arrive
    as plain strings.  roff_text makes such a string safe to print: a
    backslash becomes \e, '-' becomes \- (so options, ranges and commands
    copy and paste as typed), and a '.' or '\'' at its start is guarded,
    since roff would read it as a request.  In roff_text, `code` in
    backquotes is set in bold, the man(7) habit for what a user types.
    Nothing here knows about hopbench.
*/
#ifndef HOPBENCH_ROFF_H
#define HOPBENCH_ROFF_H

#include <stdbool.h>
#include <stdio.h>

//  .TH: "HOPBENCH 1 DATE SOURCE MANUAL", and ragged right without
//  hyphenation, so that names, keys and options stay whole
void roff_title(FILE *out, const char *name, int section, const char *date,
                const char *source, const char *manual);
//  .SH and .SS, then a new input line
void roff_section(FILE *out, const char *title);
void roff_subsection(FILE *out, const char *title);
//  A request on a line of its own: ".PP", ".TP", ".RS 4"
void roff_request(FILE *out, const char *request);
//  Escaped text, `code` in bold; no line break added
void roff_text(FILE *out, const char *text);
//  Escaped text in one font ('B' bold, 'I' italic, 'R' roman), no markup
void roff_font(FILE *out, char font, const char *text);
//  The same, for a long comma-separated list: a line may break after any
//  comma
void roff_breakable(FILE *out, char font, const char *text);
//  .PP, then the text as one input line
void roff_para(FILE *out, const char *text);
//  An indented example block, printed verbatim (escaped), one input line
//  per line of text
void roff_example(FILE *out, const char *text);

int roff_test(bool verbose);

#endif
