/* util.c - image allocation, the per-thread error record and the clock. */
#include "gf.h"
#include "gpu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static _Thread_local char errbuf[GF_ERRMSG_MAX];

double gf_process_t0;
int gf_alloc_poison = -1;

int gf_image_alloc(gf_image *im, int width, int height, int channels, int bits)
{
    size_t row, bytes;

    memset(im, 0, sizeof *im);
    if (width < 1 || height < 1 || !gf_layout_valid(channels, bits))
        return gf_err(GF_EINTERNAL, NULL, "invalid image %dx%d of %d channels of %d bits", width,
                      height, channels, bits);
    row = (size_t)width * GF_PIXEL_BYTES(channels, bits);
    bytes = row * (size_t)height;
    im->data = malloc(bytes);
    if (!im->data)
        return gf_err(GF_EINTERNAL, NULL, "out of memory for a %dx%d image", width, height);
    if (gf_alloc_poison >= 0)
        memset(im->data, gf_alloc_poison, bytes);
    im->width = width;
    im->height = height;
    im->channels = channels;
    im->bits = bits;
    im->stride = row;
    return 0;
}

int gf_image_alloc_shape(gf_image *im, const gf_shape *s)
{
    return gf_image_alloc(im, s->width, s->height, s->channels, s->bits);
}

/* Layout names, indexed by channels - 1 and bits / 16. */
static const char *const layout_names[4][2] = {
    {"8u_C1", "16u_C1"}, {"8u_C2", "16u_C2"}, {"8u_C3", "16u_C3"}, {"8u_C4", "16u_C4"}};
static const char *const layout_words[4][2] = {{"gray 8-bit", "gray 16-bit"},
                                               {"gray+alpha 8-bit", "gray+alpha 16-bit"},
                                               {"RGB 8-bit", "RGB 16-bit"},
                                               {"RGBA 8-bit", "RGBA 16-bit"}};

const char *gf_layout_name(int channels, int bits)
{
    return gf_layout_valid(channels, bits) ? layout_names[channels - 1][bits / 16] : "?";
}

const char *gf_layout_words(int channels, int bits)
{
    return gf_layout_valid(channels, bits) ? layout_words[channels - 1][bits / 16] : "?";
}

const char *gf_channel_name(int channels, int c)
{
    static const char *const rgba[] = {"red", "green", "blue", "alpha"};

    if (c < 0 || c >= channels)
        return "?";
    if (channels <= 2)
        return c == 0 ? "gray" : "alpha";
    return rgba[c];
}

void gf_image_free(gf_image *im)
{
    free(im->data);
    memset(im, 0, sizeof *im);
}

int gf_err(int code, const char *where, const char *fmt, ...)
{
    va_list ap;
    size_t n = 0;

    if (where)
        n = (size_t)snprintf(errbuf, sizeof errbuf, "%s: ", where);
    if (n >= sizeof errbuf - 4) { /* a very long name: keep its start */
        memcpy(errbuf + sizeof errbuf - 4, "...", 4);
        return code;
    }
    va_start(ap, fmt);
    if ((size_t)vsnprintf(errbuf + n, sizeof errbuf - n, fmt, ap) >= sizeof errbuf - n)
        memcpy(errbuf + sizeof errbuf - 4, "...", 4);
    va_end(ap);
    return code;
}

int gf_parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
    unsigned long long u;
    char *end;

    errno = 0;
    if (s[0] < '0' || s[0] > '9' || (u = strtoull(s, &end, 10), errno) || *end || u < lo ||
        u > hi)
        return gf_err(GF_EUSAGE, NULL, "%s: '%s' is not a number in %llu..%llu", opt, s,
                      (unsigned long long)lo, (unsigned long long)hi);
    *v = u;
    return 0;
}

int gf_parse_int(const char *opt, const char *s, int lo, int hi, int *v)
{
    uint64_t u;
    int rc;

    if (lo < 0) /* no option takes negative numbers */
        lo = 0;
    if ((rc = gf_parse_u64(opt, s, (uint64_t)lo, (uint64_t)hi, &u)) == 0)
        *v = (int)u;
    return rc;
}

int gf_parse_ints(const char *opt, const char *form, const char *s, char sep, int n, int lo,
                  int hi, int *v)
{
    const char *p = s;

    for (int i = 0; i < n; i++) {
        const char *end = i < n - 1 ? strchr(p, sep) : p + strlen(p);
        char num[24];
        if (!end || (size_t)(end - p) >= sizeof num)
            break;
        memcpy(num, p, (size_t)(end - p));
        num[end - p] = 0;
        if (gf_parse_int(opt, num, lo, hi, &v[i]))
            break;
        if (i == n - 1)
            return 0;
        p = end + 1;
    }
    return gf_err(GF_EUSAGE, NULL, "%s: '%s' is not %s (%d..%d each)", opt, s, form, lo, hi);
}

const char *gf_path_ext(const char *path)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');

    return dot && dot != name ? dot + 1 : NULL;
}

const char *gf_errmsg(void)
{
    return errbuf;
}

unsigned gf_rand(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (unsigned)((x * 2685821657736338717ull) >> 32);
}

int gf_image_random(gf_image *im, int width, int height, int channels, int bits,
                    uint64_t *state)
{
    int rc = gf_image_alloc(im, width, height, channels, bits);
    const size_t n = (size_t)width * height * (size_t)channels;

    for (size_t i = 0; rc == 0 && i < n; i++) {
        const unsigned r = gf_rand(state);
        if (bits == 8)
            im->data[i] = (unsigned char)r;
        else
            ((uint16_t *)(void *)im->data)[i] = (uint16_t)r;
    }
    return rc;
}

void gf_set_cpu_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n > 0 ? n : 1);
#else
    (void)n;
#endif
}

int gf_cpu_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int gf_cpu_avx2(void)
{
#if GF_X86
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

int gf_cpu_avx512(void)
{
#if GF_X86
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gf_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double gf_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

size_t gf_dimage_pitch(const gf_shape *s)
{
    const size_t row = (size_t)s->width * GF_PIXEL_BYTES(s->channels, s->bits);
    return (row + GF_PITCH_ALIGN - 1) / GF_PITCH_ALIGN * GF_PITCH_ALIGN;
}

size_t gf_dimage_bytes(const gf_shape *s)
{
    return gf_dimage_pitch(s) * (size_t)s->height;
}
