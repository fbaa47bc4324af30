/*  tsc: where the kernel says how fast the TSC runs (tsc.h).  */
#include "machine/tsc.h"

#include "base/check.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double tsc_parse_log(const char *line)
{
    const char *at = strstr(line, "tsc: ");
    double mhz;
    if (!at)
        return 0;
    if (sscanf(at, "tsc: Refined TSC clocksource calibration: %lf MHz", &mhz) ==
            1 ||
        sscanf(at, "tsc: Detected %lf MHz", &mhz) == 1)
        return mhz > 0 ? mhz * 1e6 : 0;
    return 0;
}

static double s_sysfs(void)
{
    FILE *file = fopen("/sys/devices/system/cpu/cpu0/tsc_freq_khz", "r");
    double khz = 0;
    if (file) {
        if (fscanf(file, "%lf", &khz) != 1)
            khz = 0;
        fclose(file);
    }
    return khz * 1e3;
}

//  The kernel's ring buffer, read without waiting: the refined
//  calibration wins over the first guess
static double s_kernel_log(void)
{
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return 0;
    char record[1024];
    double detected = 0, refined = 0;
    ssize_t n;
    while ((n = read(fd, record, sizeof record - 1)) > 0) {
        record[n] = 0;
        double hz = tsc_parse_log(record);
        if (hz > 0 && strstr(record, "Refined"))
            refined = hz;
        else if (hz > 0)
            detected = hz;
    }
    close(fd);
    return refined > 0 ? refined : detected;
}

static double s_cpuinfo(void)
{
    FILE *file = fopen("/proc/cpuinfo", "r");
    char line[256];
    double mhz = 0;
    while (file && fgets(line, sizeof line, file))
        if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
            break;
    if (file)
        fclose(file);
    return mhz * 1e6;
}

double tsc_hz(char *source, size_t len)
{
    static const struct {
        const char *name;
        double (*read)(void);
    } ways[] = {{"sysfs", s_sysfs},
                {"kernel log", s_kernel_log},
                {"cpuinfo", s_cpuinfo}};
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        double hz = ways[i].read();
        if (hz > 0) {
            snprintf(source, len, "%s", ways[i].name);
            return hz;
        }
    }
    snprintf(source, len, "unknown");
    return 0;
}

int tsc_test(bool verbose)
{
    (void)verbose;
    char source[32];
    CHECK(tsc_parse_log("6,20,19;tsc: Detected 2100.000 MHz processor") ==
          2100e6);
    CHECK(tsc_parse_log("tsc: Refined TSC clocksource calibration: "
                        "2099.998 MHz") == 2099.998e6);
    CHECK(tsc_parse_log("clocksource: tsc: mask: 0xffffffffffffffff") == 0);
    CHECK(tsc_parse_log("nothing here") == 0);
    double hz = tsc_hz(source, sizeof source);
    CHECK(hz == 0 ? strcmp(source, "unknown") == 0 : hz > 1e8);
    return 0;
}
