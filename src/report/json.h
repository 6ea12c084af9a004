/* json.h - gpufilt's JSON output: jansson (Debian libjansson-dev) builds the
 * values; these helpers fix how numbers and lines look. */
#ifndef GF_JSON_H
#define GF_JSON_H

#include <math.h>
#include <stdio.h>

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
 * order, reals with up to 15 significant digits, holding f's lock so that
 * a batch's workers never mix their lines. Returns 0, or -1 when j is NULL
 * or the write fails. */
static inline int gf_json_line(const json_t *j, FILE *f)
{
    int rc = -1;

    if (!j)
        return -1;
    flockfile(f);
    if (json_dumpf(j, f, JSON_COMPACT | JSON_REAL_PRECISION(15)) == 0 && fputc('\n', f) != EOF)
        rc = 0;
    funlockfile(f);
    return rc;
}

#endif
