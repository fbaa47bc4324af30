/*  plot_search: the knee of a search (mode = search), from search.csv.

        STEM-search-SIZEB.png   top: what each hop delivered per second
                                against the rate offered, beside the line
                                delivered = offered; bottom: the share of
                                its messages each hop lost

    One chart per topology, sweep combination and size; each trial of the
    search is a point (the flat-out bound, the steps, the confirmations),
    one line per link, sorted by the rate offered.  The rate found is
    marked.  This is the curve a broker's sizing is read from: where a hop
    stops keeping up with what it is offered, and which hop it is.
*/
#ifndef HOPBENCH_PLOT_SEARCH_H
#define HOPBENCH_PLOT_SEARCH_H

#include "report/plot_read.h"

//  search.csv's reader (plot_read_charts): a chart per topology, sweep
//  combination and size; none without search.csv
extern const plot_reader_t plot_search_reader;

#endif
