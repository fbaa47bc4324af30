/*  resultsdir: results directories, metadata.json, the ipc directory.  */
#include "report/resultsdir.h"

#include "base/jsondoc.h"

#include <czmq.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

void resultsdir_utc(char *out, size_t len, bool compact)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

//  mkdir -p
static int s_mkdirs(const char *path, errbuf_t *err)
{
    char partial[512];
    size_t len = strlen(path);
    if (len >= sizeof partial)
        return err_set(err, "%s: path too long", path);
    for (size_t i = 1; i <= len; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        memcpy(partial, path, i);
        partial[i] = 0;
        if (mkdir(partial, 0755) && errno != EEXIST)
            return err_set(err, "cannot create %s: %s", partial,
                           strerror(errno));
    }
    struct stat st;
    if (stat(path, &st) || !S_ISDIR(st.st_mode))
        return err_set(err, "%s is not a directory", path);
    return 0;
}

int resultsdir_create(const char *path, const char *name, char *out, size_t len,
                      errbuf_t *err)
{
    if (path)
        snprintf(out, len, "%s", path);
    else {
        char utc[32];
        resultsdir_utc(utc, sizeof utc, true);
        snprintf(out, len, "results/%s-%s", utc, name);
    }
    return s_mkdirs(out, err);
}

//  One node of "numa": its id, CPUs and distances to every node
static json_t *s_node(const machine_t *machine, int n)
{
    char cpus[1024];
    json_t *node = json_object(), *distances = json_array();
    int rc = node && distances ? 0 : -1;
    for (int m = 0; rc == 0 && m < machine->nnodes; m++)
        rc = json_array_append_new(distances,
                                   json_integer(machine->nodes[n].distance[m]));
    cpuset_format(&machine->nodes[n].cpus, cpus, sizeof cpus);
    rc = rc || jsondoc_set(node, "node", json_integer(machine->nodes[n].id)) ||
         jsondoc_set(node, "cpus", jsondoc_text(cpus)) ||
         jsondoc_set(node, "distances", json_incref(distances));
    json_decref(distances);
    return jsondoc_kept(node, rc);
}

//  "numa": where the machine came from, and its nodes
static json_t *s_numa(const machine_t *machine)
{
    json_t *numa = json_object(), *nodes = json_array();
    int rc = numa && nodes ? 0 : -1;
    for (int n = 0; rc == 0 && n < machine->nnodes; n++)
        rc = json_array_append_new(nodes, s_node(machine, n));
    rc = rc || jsondoc_set(numa, "source", jsondoc_text(machine->source)) ||
         jsondoc_set(numa, "nodes", json_incref(nodes));
    json_decref(nodes);
    return jsondoc_kept(numa, rc);
}

//  "hosts": one entry per host of the run, as its agent described itself
static json_t *s_hosts(const run_meta_t *meta)
{
    json_t *hosts = json_array();
    for (int i = 0; hosts && i < meta->nhosts; i++) {
        const run_host_t *h = &meta->hosts[i];
        json_t *host = json_object();
        int rc =
            !host || jsondoc_set(host, "name", jsondoc_text(h->name)) ||
            jsondoc_set(host, "agent", jsondoc_text(h->agent)) ||
            jsondoc_set(host, "hostname", jsondoc_text(h->hostname)) ||
            jsondoc_set(host, "agent_version", jsondoc_text(h->hopbench)) ||
            jsondoc_set(host, "protocol", json_integer(h->protocol)) ||
            jsondoc_set(host, "kernel", jsondoc_text(h->kernel)) ||
            jsondoc_set(host, "cpu_model", jsondoc_text(h->cpu_model)) ||
            jsondoc_set(host, "libzmq", jsondoc_text(h->libzmq)) ||
            jsondoc_set(host, "czmq", jsondoc_text(h->czmq)) ||
            jsondoc_set(host, "numa_nodes", json_integer(h->numa_nodes)) ||
            jsondoc_set(host, "clock_offset_ns",
                        jsondoc_number(round(h->clock_offset_ns))) ||
            jsondoc_set(host, "clock_uncertainty_ns",
                        jsondoc_number(round(h->clock_uncertainty_ns)));
        if (rc || json_array_append_new(hosts, host)) {
            json_decref(hosts);
            return NULL;
        }
    }
    return hosts;
}

//  "warnings": the lines, one string each
static json_t *s_warnings(const char *warnings)
{
    json_t *list = json_array();
    for (const char *p = warnings; list && *p;) {
        size_t len = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (json_array_append_new(list, jsondoc_text(line))) {
            json_decref(list);
            return NULL;
        }
        p += len + (p[len] == '\n');
    }
    return list;
}

//  The versions of hopbench and its libraries, the kernel and the host
static int s_versions(json_t *doc)
{
    char libzmq[32], czmq[32], kernel[3 * sizeof(struct utsname)];
    int major, minor, patch;
    struct utsname uts = {0};
    zmq_version(&major, &minor, &patch);
    snprintf(libzmq, sizeof libzmq, "%d.%d.%d", major, minor, patch);
    zsys_version(&major, &minor, &patch);
    snprintf(czmq, sizeof czmq, "%d.%d.%d", major, minor, patch);
    kernel[0] = 0;
    if (uname(&uts) == 0)
        snprintf(kernel, sizeof kernel, "%s %s %s", uts.sysname, uts.release,
                 uts.machine);
    return jsondoc_set(doc, "hopbench", jsondoc_text(HOPBENCH_VERSION)) ||
                   jsondoc_set(doc, "libzmq", jsondoc_text(libzmq)) ||
                   jsondoc_set(doc, "czmq", jsondoc_text(czmq)) ||
                   jsondoc_set(doc, "kernel", jsondoc_text(kernel)) ||
                   jsondoc_set(doc, "hostname", jsondoc_text(uts.nodename))
               ? -1
               : 0;
}

//  metadata.json's fields, in the order the file has them
static int s_fields(json_t *doc, const run_meta_t *meta,
                    const machine_t *machine)
{
    char updated[32];
    resultsdir_utc(updated, sizeof updated, false);
    const char *const text[][2] = {
        {"cpu_model", machine->model},
        {"machine", machine->name},
        {"command_line", meta->command_line},
        {"topology", meta->topology},
        {"topology_file", meta->file},
        {"started_utc", meta->started},
        {"updated_utc", updated},
        {"status", meta->status},
        {"error", meta->error},
        {"curve", meta->curve[0] ? meta->curve : "false"},
        {"sweep", meta->sweep},
        {"mode", meta->mode}};
    if (s_versions(doc))
        return -1;
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        if (jsondoc_set(doc, text[i][0], jsondoc_text(text[i][1])))
            return -1;
    return jsondoc_set(doc, "tsc_hz", jsondoc_number(round(meta->tsc_hz))) ||
                   jsondoc_set(doc, "tsc_source",
                               jsondoc_text(meta->tsc_source)) ||
                   jsondoc_set(doc, "numa", s_numa(machine)) ||
                   jsondoc_set(doc, "hosts", s_hosts(meta)) ||
                   jsondoc_set(doc, "warnings", s_warnings(meta->warnings)) ||
                   jsondoc_set(doc, "published",
                               meta->published ? json_incref(meta->published)
                                               : json_array())
               ? -1
               : 0;
}

int resultsdir_metadata(const char *dir, const run_meta_t *meta,
                        const machine_t *machine, errbuf_t *err)
{
    char path[600], tmp[610];
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    json_t *doc = json_object();
    if (!doc || s_fields(doc, meta, machine)) {
        json_decref(doc);
        return err_set(err, "%s: out of memory", path);
    }
    FILE *out = fopen(tmp, "w");
    int rc = out ? jsondoc_print(out, doc, err) : -1;
    json_decref(doc);
    if (!out || fclose(out) || rc || rename(tmp, path))
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int resultsdir_published(run_meta_t *meta, unsigned size, int repeat,
                         int nsweep, const char *const *keys,
                         const char *const *values, int norigins,
                         const char *const *names, const uint64_t *sent)
{
    json_t *entry = json_object(), *sweep = json_object(),
           *counts = json_object();
    int rc = entry && sweep && counts ? 0 : -1;
    for (int k = 0; rc == 0 && k < nsweep; k++)
        rc = jsondoc_set(sweep, keys[k], jsondoc_text(values[k]));
    for (int o = 0; rc == 0 && o < norigins; o++)
        rc = jsondoc_set(counts, names[o], json_integer((json_int_t)sent[o]));
    if (!meta->published && rc == 0)
        rc = (meta->published = json_array()) ? 0 : -1;
    rc = rc || jsondoc_set(entry, "size", json_integer(size)) ||
         jsondoc_set(entry, "repeat", json_integer(repeat)) ||
         jsondoc_set(entry, "sweep", json_incref(sweep)) ||
         jsondoc_set(entry, "sent", json_incref(counts)) ||
         json_array_append(meta->published, entry);
    json_decref(entry);
    json_decref(sweep);
    json_decref(counts);
    return rc ? -1 : 0;
}

void resultsdir_meta_free(run_meta_t *meta)
{
    json_decref(meta->published);
    meta->published = NULL;
    free(meta->hosts);
    meta->hosts = NULL;
    meta->nhosts = 0;
}

int resultsdir_ipc_create(char *out, size_t len, errbuf_t *err)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, len, "%s/hopbench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(out)) //  mkdtemp makes it 0700
        return err_set(err, "cannot create a private directory %s: %s", out,
                       strerror(errno));
    return 0;
}

void resultsdir_ipc_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *entry;
    char path[512];
    while ((entry = readdir(d)))
        if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}
