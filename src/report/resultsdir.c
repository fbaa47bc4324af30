/*  resultsdir: results directories, metadata.json, the ipc directory.  */
#include "report/resultsdir.h"

#include "base/json.h"

#include <czmq.h>
#include <dirent.h>
#include <errno.h>
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

static void s_machine(FILE *out, const machine_t *machine)
{
    char cpus[1024];
    fputs(",\n  \"numa\": {\"source\": ", out);
    json_string(out, machine->source);
    fprintf(out, ", \"nodes\": [");
    for (int n = 0; n < machine->nnodes; n++) {
        cpuset_format(&machine->nodes[n].cpus, cpus, sizeof cpus);
        fprintf(out, "%s\n    {\"node\": %d, \"cpus\": ", n ? "," : "",
                machine->nodes[n].id);
        json_string(out, cpus);
        fputs(", \"distances\": [", out);
        for (int m = 0; m < machine->nnodes; m++)
            fprintf(out, "%s%d", m ? ", " : "", machine->nodes[n].distance[m]);
        fputs("]}", out);
    }
    fputs("]}", out);
}

//  "hosts": one entry per host of the run, as its agent described itself
static void s_hosts(FILE *out, const run_meta_t *meta)
{
    fputs(",\n  \"hosts\": [", out);
    for (int i = 0; i < meta->nhosts; i++) {
        const run_host_t *h = &meta->hosts[i];
        fputs(i ? ",\n    {" : "\n    {", out);
        json_field(out, "name", h->name, 1);
        json_field(out, "agent", h->agent, 0);
        json_field(out, "hostname", h->hostname, 0);
        json_field(out, "agent_version", h->hopbench, 0);
        fprintf(out, ", \"protocol\": %d", h->protocol);
        json_field(out, "kernel", h->kernel, 0);
        json_field(out, "cpu_model", h->cpu_model, 0);
        json_field(out, "libzmq", h->libzmq, 0);
        json_field(out, "czmq", h->czmq, 0);
        fprintf(out, ", \"numa_nodes\": %d", h->numa_nodes);
        fprintf(out, ", \"clock_offset_ns\": %.0f", h->clock_offset_ns);
        fprintf(out, ", \"clock_uncertainty_ns\": %.0f}",
                h->clock_uncertainty_ns);
    }
    fputs("]", out);
}

static void s_warnings(FILE *out, const char *warnings)
{
    fputs(",\n  \"warnings\": [", out);
    int first = 1;
    for (const char *p = warnings; *p;) {
        size_t len = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        fputs(first ? "\n    " : ",\n    ", out);
        json_string(out, line);
        first = 0;
        p += len + (p[len] == '\n');
    }
    fputs("]", out);
}

static void s_versions(FILE *out)
{
    char text[256];
    int major, minor, patch;
    struct utsname uts;
    snprintf(text, sizeof text, "%s", HOPBENCH_VERSION);
    json_field(out, "hopbench", text, 1);
    zmq_version(&major, &minor, &patch);
    snprintf(text, sizeof text, "%d.%d.%d", major, minor, patch);
    json_field(out, "libzmq", text, 0);
    zsys_version(&major, &minor, &patch);
    snprintf(text, sizeof text, "%d.%d.%d", major, minor, patch);
    json_field(out, "czmq", text, 0);
    if (uname(&uts) == 0) {
        snprintf(text, sizeof text, "%s %s %s", uts.sysname, uts.release,
                 uts.machine);
        json_field(out, "kernel", text, 0);
        json_field(out, "hostname", uts.nodename, 0);
    }
}

int resultsdir_metadata(const char *dir, const run_meta_t *meta,
                        const machine_t *machine, errbuf_t *err)
{
    char path[600], tmp[610], finished[32];
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out)
        return err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    fputc('{', out);
    s_versions(out);
    json_field(out, "cpu_model", machine->model, 0);
    json_field(out, "machine", machine->name, 0);
    json_field(out, "command_line", meta->command_line, 0);
    json_field(out, "topology", meta->topology, 0);
    json_field(out, "topology_file", meta->file, 0);
    json_field(out, "started_utc", meta->started, 0);
    resultsdir_utc(finished, sizeof finished, false);
    json_field(out, "updated_utc", finished, 0);
    json_field(out, "status", meta->status, 0);
    json_field(out, "error", meta->error, 0);
    json_field(out, "curve", meta->curve[0] ? meta->curve : "false", 0);
    json_field(out, "sweep", meta->sweep, 0);
    json_field(out, "mode", meta->mode, 0);
    fprintf(out, ",\n  \"tsc_hz\": %.0f", meta->tsc_hz);
    json_field(out, "tsc_source", meta->tsc_source, 0);
    s_machine(out, machine);
    s_hosts(out, meta);
    s_warnings(out, meta->warnings);
    fprintf(out, ",\n  \"published\": [%s%s]",
            meta->published ? meta->published : "",
            meta->published ? "\n  " : "");
    fputs("\n}\n", out);
    if (fclose(out) || rename(tmp, path))
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
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
