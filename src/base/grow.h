/*  grow: an array that grows to hold what it must, the one way arrays
    of a count not known ahead grow here.

        series_t *v = NULL;
        int cap = 0, n = 0;
        if (grow(&v, &cap, n + 1, sizeof *v))
            return err_set(err, "out of memory");
        v[n++] = ...;

    The capacity doubles from 16, so appending n elements costs O(n).
*/
#ifndef HOPBENCH_GROW_H
#define HOPBENCH_GROW_H

#include <stddef.h>

//  *array_p (of *cap elements of size bytes) grown to hold need; 0, or
//  -1 when out of memory (the array as it was)
int grow(void *array_p, int *cap, int need, size_t size);

#endif
