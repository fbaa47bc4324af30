/*  grow: arrays grown by doubling; see grow.h.  */
#include "base/grow.h"

#include <stdlib.h>
#include <string.h>

int grow(void *array_p, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 0;
    int bigger = *cap ? *cap * 2 : 16;
    while (bigger < need)
        bigger *= 2;
    void *array;
    memcpy(&array, array_p, sizeof array);
    void *grown = realloc(array, (size_t)bigger * size);
    if (!grown)
        return -1;
    memcpy(array_p, &grown, sizeof grown);
    *cap = bigger;
    return 0;
}
