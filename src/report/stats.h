/* stats.h - statistics of a histogram of one channel: 256 bins (8-bit) or
 * 65536 (16-bit), one a value, in the sample's own units. */
#ifndef GF_STATS_H
#define GF_STATS_H

#include <stdint.h>

#include <jansson.h>

#include "../stage.h"

typedef struct gf_hist_stats {
    uint64_t pixels;  /* sum of the bins */
    int min, max;     /* smallest and largest value present */
    double mean;      /* sum(v * count) / pixels */
    double stddev;    /* population standard deviation */
    int mode;         /* the most frequent value; the smallest on ties */
    int median;       /* p50, by nearest rank as below */
    int p1, p5, p25, p75, p95, p99;
    double entropy;   /* Shannon entropy in bits: -sum(p log2 p) */
    int otsu;         /* Otsu's threshold t: classes [0, t] and [t+1, max] */
} gf_hist_stats;

/* Statistics of bins[nbins] (host memory; nbins 256 or 65536). Percentile p (nearest rank) is the
 * smallest value v whose cumulative count is at least p * pixels / 100; the
 * median is p50. Otsu's threshold (N. Otsu, "A threshold selection method
 * from gray-level histograms", IEEE SMC 1979) maximises the between-class
 * variance w0 w1 (mu0 - mu1)^2; the smallest t on ties; 0 for a one-valued
 * image. All zero for an empty histogram. */
void gf_hist_stats_compute(const uint32_t *bins, int nbins, gf_hist_stats *st);

/* The percentile p (0 < p <= 100) of bins[nbins] by the rule above. */
int gf_hist_percentile(const uint32_t *bins, int nbins, uint64_t pixels, double p);

/* The number of statistics gf_hist_stats_kv gives. */
#define GF_HIST_NSTATS 15

/* st as key=value pairs in out (GF_HIST_NSTATS entries): pixels, min, max,
 * mean (4 decimals), stddev, mode, median, p1, p5, p25, p75, p95, p99,
 * entropy and otsu; each key after `prefix` (e.g. "red.", or ""). Returns
 * their count. */
int gf_hist_stats_kv(const gf_hist_stats *st, const char *prefix, gf_stat *out);

/* st as a new JSON object (reals to 6 decimals), or NULL out of memory. */
json_t *gf_hist_stats_json(const gf_hist_stats *st);

#endif
