/*  text: a string copied into a fixed field, always terminated, cut to
    the field (the one way hopbench copies a name or a label into a
    struct: strncpy leaves no terminator when it cuts).

        TEXT_SET(h->name, fleet_name(fleet, i));

    'field' must be an array, not a pointer (sizeof is its room).
*/
#ifndef HOPBENCH_TEXT_H
#define HOPBENCH_TEXT_H

#include <stdio.h>

#define TEXT_SET(field, value) snprintf((field), sizeof(field), "%s", (value))

#endif
