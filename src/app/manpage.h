/*  manpage: the man page writer's pieces in files of their own
*/
#ifndef HOPBENCH_MANPAGE_H
#define HOPBENCH_MANPAGE_H

#include <stdio.h>

//  hopbench(1)'s FILES section (manpage_files.c): 0, or -1 out of memory
int manpage_files(FILE *out);

#endif
