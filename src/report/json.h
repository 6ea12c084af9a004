/* json.h - gpufilt's JSON output: jansson (Debian libjansson-dev) builds the
 * values; these helpers fix how numbers and lines look. */
#ifndef GF_JSON_H
#define GF_JSON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* x rounded to `decimals` decimal places, as a new JSON real (a NaN or an
 * infinity becomes null). */
static inline json_t *gf_json_real(double x, int decimals)
{
    double scale = pow(10.0, decimals);
    if (!isfinite(x))
        return json_null();
    return json_real(round(x * scale) / scale);
}

/* Writes j to f as one compact line with a newline, keys in insertion
 * order, reals with up to 15 significant digits, in one write (built in
 * memory first: an unbuffered stderr would take a system call per token,
 * and a batch's workers would queue on its lock), so that a batch's
 * workers never mix their lines. Returns 0, or -1 when j is NULL, memory
 * runs out or the write fails. */
static inline int gf_json_line(const json_t *j, FILE *f)
{
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;
    size_t n;
    int rc = -1;

    if (!s)
        return -1;
    n = strlen(s);
    char *line = (char *)realloc(s, n + 2);
    if (line) {
        line[n] = '\n';
        line[n + 1] = 0;
        s = line;
        rc = fwrite(s, 1, n + 1, f) == n + 1 ? 0 : -1;
    }
    free(s);
    return rc;
}

#endif
