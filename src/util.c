/* util.c - image allocation, the per-thread error record and the clock. */
#include "gf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Thread_local char errbuf[1024];

int gf_image_alloc(gf_image *im, int width, int height)
{
    memset(im, 0, sizeof *im);
    if (width < 1 || height < 1)
        return gf_err(GF_EINTERNAL, NULL, "invalid image size %dx%d", width, height);
    im->data = malloc((size_t)width * (size_t)height);
    if (!im->data)
        return gf_err(GF_EINTERNAL, NULL, "out of memory for a %dx%d image", width, height);
    im->width = width;
    im->height = height;
    im->stride = (size_t)width;
    return 0;
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
    if (n >= sizeof errbuf)
        n = sizeof errbuf - 1;
    va_start(ap, fmt);
    vsnprintf(errbuf + n, sizeof errbuf - n, fmt, ap);
    va_end(ap);
    return code;
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

int gf_image_random(gf_image *im, int width, int height, uint64_t *state)
{
    int rc = gf_image_alloc(im, width, height);

    for (size_t i = 0; rc == 0 && i < (size_t)width * height; i++)
        im->data[i] = (unsigned char)gf_rand(state);
    return rc;
}

double gf_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
