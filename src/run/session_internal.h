/*  session_internal: a session's state, shared by session.c (its life
    and its trials), session_files.c (the results files), session_meta.c
    (metadata's fields and the warnings) and session_admit.c (the checks
    before a pipeline runs).  Private to src/run/session*.c.
*/
#ifndef HOPBENCH_SESSION_INTERNAL_H
#define HOPBENCH_SESSION_INTERNAL_H

#include "crew/crew.h"
#include "pipeline/zones.h"
#include "run/session.h"

#include <stdint.h>
#include <stdio.h>

struct session_s {
    session_options_t o;
    pipeline_t *current; //  the pipeline being measured (session_up)
    crew_t *crew;        //  ...its stages
    zones_t *zones;      //  ...and its network namespaces, if it has any
    trial_kept_t kept;   //  the pipeline a trial left up (trial.h)
    char dir[512];
    char ipc_dir[256];
    //  the results files: session_files.c alone opens, writes and
    //  closes them
    FILE *results, *threads, *memory, *latency, *search, *syscalls;
    FILE *search_summary; //  mode = search: a row per size and loss ratio
    FILE *sockets;        //  --per-socket: sockets.csv, at its first rows
    FILE *timeline;       //  each link's rate step by step (timeline.csv)
    placements_t *study;  //  placement = all: placements.csv at the end
    int trials;           //  started so far: makes inproc names unique
    int configs;          //  effective topologies written for stages
    int stalled;          //  trials that stalled twice (trial_stall.c)
    int stalled_starved;  //  ...of which every stalled row was starved
    run_meta_t meta;
    char warnings[1 << 16]; //  a trial's, whole lines (base/lines.h)
    int warnings_more;      //  distinct warnings metadata had no room for
    int ndropped;           //  ...their hashes, to count each once
    uint64_t dropped[1024];
    report_info_t info;
    progress_t progress;
};

//  session_meta.c: metadata's fields the session knows at its start
//  (command line, TSC, hosts, time); at the end "... and N more
//  warnings"; what each publisher of a trial with rows sent
void session_meta_init(session_t *self);
void session_meta_end(session_t *self);
void session_meta_published(session_t *self, const trial_result_t *trial);

//  session_files.c: the directory and its first files; every file
//  closed, metadata.json rewritten, results.json; charts
int session_files_open(session_t *self, errbuf_t *err);
void session_files_close(session_t *self);
void session_files_plot(const session_t *self);

#endif
