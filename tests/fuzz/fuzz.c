/*  fuzz: what the libFuzzer targets share (see fuzz.h).  */
#include "fuzz.h"

#include <czmq.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

//  numa/xeon-e5-2680v4-2s.cfg, inline: the targets run from any directory
static const char *s_xeon_text =
    "machine = xeon-e5-2680v4-2s\n"
    "    model = \"Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz\"\n"
    "    smt_offset = 28\n"
    "node = 0\n"
    "    cpus = 0-13,28-41\n"
    "    distances = 10,21\n"
    "node = 1\n"
    "    cpus = 14-27,42-55\n"
    "    distances = 21,10\n";

static machine_t *s_xeon, *s_live;
static FILE *s_null;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    //  Before zsys_init, or czmq takes SIGINT/SIGTERM from libFuzzer
    zsys_handler_set(NULL);
    zsys_init();
    zsys_set_logstream(stderr);
    errbuf_t err;
    s_xeon = machine_new_text("xeon.cfg", s_xeon_text, &err);
    if (!s_xeon)
        fuzz_fail(s_xeon_text, "xeon: %s", err.msg);
    s_live = machine_new_live(&err);
    if (!s_live)
        fuzz_fail("", "live machine: %s", err.msg);
    s_null = fopen("/dev/null", "w");
    if (!s_null)
        fuzz_fail("", "cannot open /dev/null");
    return 0;
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size))
        return NULL;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    return text;
}

const machine_t *fuzz_xeon(void)
{
    return s_xeon;
}

const machine_t *fuzz_live(void)
{
    return s_live;
}

FILE *fuzz_null(void)
{
    return s_null;
}

void fuzz_check_refusal(const char *input, const char *path, const char *msg)
{
    //  The whole message: others quote the input, which can end the same
    char refused[300];
    snprintf(refused, sizeof refused, "%s: not valid ZPL", path);
    if (strcmp(msg, refused) == 0)
        fuzz_fail(input, "zconfig refused what zpl passed: %s", msg);
}

//  The effective config as a run writes it
static char *s_save(const topology_t *topo)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    topology_save(topo, out);
    fclose(out);
    return text;
}

void fuzz_check_saved(const topology_t *topo, const char *input)
{
    errbuf_t err = {0};
    char *saved = s_save(topo);
    topology_t *again = topology_load_text(topo->path, saved, &err);
    if (!again || topology_validate(again, &err))
        fuzz_fail(input, "the saved config does not load back: %s\n%s", err.msg,
                  saved);
    char *resaved = s_save(again);
    if (strcmp(saved, resaved))
        fuzz_fail(input,
                  "the saved config changes when saved again:\n%s---\n%s",
                  saved, resaved);
    free(resaved);
    free(saved);
    topology_destroy(&again);
}

void fuzz_check_where(const char *input, const char *path, const char *msg)
{
    size_t len = strlen(path);
    bool at_file = strncmp(msg, path, len) == 0 && msg[len] == ':';
    if (!at_file && strncmp(msg, "--set ", 6) && strncmp(msg, "--sweep ", 8))
        fuzz_fail(input, "an error that says not where: %s", msg);
}

void fuzz_fail(const char *input, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz: property broken: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n--- input ---\n%s\n--- end ---\n", input);
    abort();
}
