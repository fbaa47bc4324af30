/*  traffic_warn: what a pipeline's topics do that its file does not show.

    Two things a topology file can say without meaning to:

        subscriber = eu-sub         subscriber numbers run over every
            count = 4               subscriber instance of the file, so
            subscribe = 5%          eu-sub.1 is number 0 and takes topics
        subscriber = us-sub         0 and 20, the busiest of a zipf feed,
            count = 4               while us-sub.4 (number 7) takes 7 and
            subscribe = 5%          27: "5 %" each, shares far apart

    - instances that name the same count or share (subscribe = 5%) but
      take very unequal shares of their publishers' messages (the largest
      more than TRAFFIC_UNEVEN times the smallest), under the publishers'
      topic_order: one line for the most uneven value;
    - a subscriber whose topics are partly beyond what every publisher
      upstream of it sends (subscribe = 0-20 under topics = 10): those can
      never arrive (none at all is an error: traffic_check_reached).

    Warnings only: the run is what the file says.  Pure: the tables of
    config/topics.h, the sets of traffic.h; nothing is measured.
*/
#ifndef HOPBENCH_TRAFFIC_WARN_H
#define HOPBENCH_TRAFFIC_WARN_H

#include <stddef.h>

#include "pipeline/pipeline.h"

#define TRAFFIC_UNEVEN 2.0

//  The warnings, each a line ending in '\n', into out ("" when none);
//  -1 when out of memory
int traffic_warnings(const pipeline_t *pl, char *out, size_t len);

int traffic_warn_test(bool verbose);

#endif
