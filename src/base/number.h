/*  number: a decimal number as people write it, the one reader of numbers
    in what hopbench is given (keys, --set, options, and the CSV files it
    reads back).

        double v;
        if (number_parse("0.25", &v) == 0) ...     //  0.25
        number_parse("0x10", &v)                   //  -1: not decimal

    strtod alone takes more than people mean: hexadecimal ("0x10" is 16,
    "0x1p4" too), "inf" and "nan", leading white space, and values past
    double's range.  number_parse takes an optional sign, digits with at
    most one decimal point (a digit on at least one side), and an optional
    exponent (e or E, an optional sign, digits); the whole text, finite.
    number_whole says whether the text is digits with an optional '-'.
*/
#ifndef HOPBENCH_NUMBER_H
#define HOPBENCH_NUMBER_H

#include <stdbool.h>

//  0 and the value in *out, or -1 (*out untouched)
int number_parse(const char *text, double *out);
//  Only digits, after an optional '-'
bool number_whole(const char *text);

int number_test(bool verbose);

#endif
