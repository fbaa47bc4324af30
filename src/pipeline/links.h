/*  links: the rows a trial reports of a pipeline, as the pipeline decides
    them.  A hop's receiving instance gets a row per sender where it can
    tell its senders apart (sinks and the forwarder read every header) or
    has one; else one row for all its senders, at its first hop.  The
    trial builds its links from this (trial/trial_links.c); the plan
    counts them against LIMIT_LINKS, so a pipeline past it is refused at
    the count that makes it, before anything runs.
*/
#ifndef HOPBENCH_LINKS_H
#define HOPBENCH_LINKS_H

#include "pipeline/pipeline.h"

typedef enum {
    LINKS_NONE, //  counted in its first hop's row
    LINKS_EACH, //  a row per sender of hop h
    LINKS_ALL   //  one row for all its senders, over all its hops
} links_kind_t;

//  How hop h's receiving instance 'to' is reported
links_kind_t links_kind(const pipeline_t *pl, int h, int to);

//  The instances upstream of 'to' over all of its hops
int links_senders(const pipeline_t *pl, int to);

//  The pipeline's rows past LIMIT_LINKS: refused at the count of the
//  stage whose instances pass it
int links_check(const pipeline_t *pl, errbuf_t *err);

#endif
