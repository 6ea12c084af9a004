/* image.c - reading, decoding, encoding and atomic writing (image.h). */
#include "codec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <turbojpeg.h>

#include "../../third_party/stb.h"

#define READ_CHUNK (1u << 20)

int gf_read_all(const char *path, const gf_limits *lim, unsigned char **buf, size_t *len)
{
    int fd = STDIN_FILENO, own = 0, rc = 0;
    struct stat st;
    unsigned char *b = NULL;
    size_t n = 0, cap = 0;
    const char *name = strcmp(path, "-") ? path : "(stdin)";

    *buf = NULL;
    *len = 0;
    if (strcmp(path, "-")) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return gf_err(GF_ENOINPUT, name, "cannot open: %s", strerror(errno));
        own = 1;
    }
    if (fstat(fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            rc = gf_err(GF_ENOINPUT, name, "is a directory");
            goto out;
        }
        if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > lim->max_file_bytes) {
            rc = gf_err(GF_EDATA, name, "file of %lld bytes exceeds --max-file-size %llu",
                        (long long)st.st_size, (unsigned long long)lim->max_file_bytes);
            goto out;
        }
        if (S_ISREG(st.st_mode) && st.st_size > 0)
            cap = (size_t)st.st_size + 1; /* +1 sees EOF without a realloc */
    }
    for (;;) {
        if (!b || n == cap) {
            size_t ncap = !b && cap ? cap : cap ? cap * 2 : READ_CHUNK;
            unsigned char *nb = realloc(b, ncap);
            if (!nb) {
                rc = gf_err(GF_EINTERNAL, name, "out of memory reading the file");
                goto out;
            }
            b = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = gf_err(GF_ENOINPUT, name, "read error: %s", strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > lim->max_file_bytes) {
            rc = gf_err(GF_EDATA, name, "input exceeds --max-file-size %llu bytes",
                        (unsigned long long)lim->max_file_bytes);
            goto out;
        }
    }
    if (n == cap) { /* room for the terminating NUL */
        unsigned char *nb = realloc(b, n + 1);
        if (!nb) {
            rc = gf_err(GF_EINTERNAL, name, "out of memory reading the file");
            goto out;
        }
        b = nb;
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    b = NULL;
out:
    free(b);
    if (own)
        close(fd);
    return rc;
}

static int check_size(const char *name, uint64_t w, uint64_t h, const gf_limits *lim)
{
    if (w < 1 || h < 1)
        return gf_err(GF_EDATA, name, "invalid image size %llux%llu", (unsigned long long)w,
                      (unsigned long long)h);
    if (w > GF_MAX_DIM || h > GF_MAX_DIM)
        return gf_err(GF_EDATA, name, "image of %llux%llu exceeds the largest side, %d",
                      (unsigned long long)w, (unsigned long long)h, GF_MAX_DIM);
    if (w * h > lim->max_pixels)
        return gf_err(GF_EDATA, name, "image of %llux%llu pixels exceeds --max-pixels %llu",
                      (unsigned long long)w, (unsigned long long)h,
                      (unsigned long long)lim->max_pixels);
    return 0;
}

/* Converts n pixels of `channels` samples, each read by GET(i) as 0..maxval,
 * to 8-bit luma, counting the 8-bit R, G and B values into rgb when it is not
 * NULL. Written once per sample type by the macro below. */
#define LUMA_LOOP(GET)                                                                       \
    for (size_t i = 0; i < n; i++) {                                                         \
        if (channels <= 2) {                                                                 \
            dst[i] = SCALE(GET(i * channels));                                               \
        } else {                                                                             \
            unsigned r = SCALE(GET(i * channels)), g = SCALE(GET(i * channels + 1)),         \
                     b = SCALE(GET(i * channels + 2));                                       \
            dst[i] = (unsigned char)((77 * r + 150 * g + 29 * b) >> 8);                      \
            if (rgb) {                                                                       \
                rgb[0][r]++;                                                                 \
                rgb[1][g]++;                                                                 \
                rgb[2][b]++;                                                                 \
            }                                                                                \
        }                                                                                    \
    }
#define SCALE(v) (maxval == 255 ? (unsigned)(v) : ((unsigned)(v) * 255u + maxval / 2) / maxval)

static void luma8(const unsigned char *src, int channels, unsigned maxval, size_t n,
                  unsigned char *dst, uint32_t (*rgb)[256])
{
#define GET8(k) src[k]
    LUMA_LOOP(GET8)
#undef GET8
}

/* 16-bit samples: big-endian bytes when be != 0 (PNM), else host uint16_t. */
static void luma16(const unsigned char *src, int be, int channels, unsigned maxval, size_t n,
                   unsigned char *dst, uint32_t (*rgb)[256])
{
    const uint16_t *s16 = (const uint16_t *)(const void *)src;
#define GET16(k) (be ? (unsigned)src[2 * (k)] << 8 | src[2 * (k) + 1] : (unsigned)s16[k])
    LUMA_LOOP(GET16)
#undef GET16
}
#undef SCALE
#undef LUMA_LOOP

/* Binary PNM (P5 gray, P6 RGB): header tokens separated by whitespace and
 * '#' comments, then one whitespace byte, then the samples, big-endian when
 * maxval > 255 (netpbm's pgm(5) and ppm(5)). */
static int pnm_token(const unsigned char *buf, size_t len, size_t *pos, unsigned long *val)
{
    size_t p = *pos;
    unsigned long v = 0;
    int digits = 0;

    for (;;) {
        while (p < len && strchr(" \t\r\n\v\f", buf[p]) && buf[p])
            p++;
        if (p < len && buf[p] == '#') {
            while (p < len && buf[p] != '\n' && buf[p] != '\r')
                p++;
            continue;
        }
        break;
    }
    while (p < len && buf[p] >= '0' && buf[p] <= '9') {
        if (v > 100000000ul)
            return -1;
        v = v * 10 + (buf[p++] - '0');
        digits++;
    }
    if (!digits)
        return -1;
    *pos = p;
    *val = v;
    return 0;
}

static int decode_pnm(const char *name, const unsigned char *buf, size_t len,
                      const gf_limits *lim, gf_image *out, gf_load_info *info,
                      uint32_t (*rgb)[256])
{
    unsigned long w, h, maxval;
    size_t pos = 2, need;
    int channels = buf[1] == '6' ? 3 : 1, rc;

    if (pnm_token(buf, len, &pos, &w) || pnm_token(buf, len, &pos, &h) ||
        pnm_token(buf, len, &pos, &maxval) || pos >= len || !strchr(" \t\r\n\v\f", buf[pos]))
        return gf_err(GF_EDATA, name, "corrupt PNM header");
    pos++;
    if (maxval < 1 || maxval > 65535)
        return gf_err(GF_EDATA, name, "PNM maxval %lu is not in 1..65535", maxval);
    if ((rc = check_size(name, w, h, lim)))
        return rc;
    info->format = channels == 1 ? "pgm" : "ppm";
    info->channels = channels;
    info->bits = maxval > 255 ? 16 : 8;
    need = (size_t)w * h * (size_t)channels * (size_t)(info->bits / 8);
    if (len - pos < need)
        return gf_err(GF_EDATA, name, "truncated PNM data: %zu of %zu bytes", len - pos, need);
    if ((rc = gf_image_alloc(out, (int)w, (int)h)))
        return rc;
    if (info->bits == 8)
        luma8(buf + pos, channels, (unsigned)maxval, (size_t)w * h, out->data, rgb);
    else
        luma16(buf + pos, 1, channels, (unsigned)maxval, (size_t)w * h, out->data, rgb);
    return 0;
}

static const char *sniff(const unsigned char *b, size_t n)
{
    if (n >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8))
        return "png";
    if (n >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff)
        return "jpeg";
    if (n >= 2 && b[0] == 'B' && b[1] == 'M')
        return "bmp";
    if (n >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6'))
        return "pnm";
    return NULL;
}

static int decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256]);

/* Counts a luma image into all three of rgb: a gray image's R, G and B. */
static void count_gray(const gf_image *im, uint32_t (*rgb)[256])
{
    for (size_t i = 0; i < (size_t)im->width * im->height; i++)
        rgb[0][im->data[i]]++;
    memcpy(rgb[1], rgb[0], sizeof rgb[0]);
    memcpy(rgb[2], rgb[0], sizeof rgb[0]);
}

int gf_decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
              gf_image *out, gf_load_info *info)
{
    return gf_decode_rgb(name, buf, len, lim, out, info, NULL);
}

int gf_decode_rgb(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256])
{
    int rc = decode(name, buf, len, lim, out, info, rgb);

    if (rc == 0 && rgb && info->channels <= 2)
        count_gray(out, rgb);
    return rc;
}

static int decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256])
{
    const char *fmt = sniff(buf, len);
    int w, h, comp, rc;
    void *px;

    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    if (len == 0)
        return gf_err(GF_EDATA, name, "empty file");
    if (!fmt)
        return gf_err(GF_EDATA, name, "unknown image format (PNG, JPEG, BMP, PGM and PPM are read)");
    if (rgb)
        memset(rgb, 0, 3 * sizeof rgb[0]);
    if (!strcmp(fmt, "pnm"))
        return decode_pnm(name, buf, len, lim, out, info, rgb);
    if (len > INT_MAX)
        return gf_err(GF_EDATA, name, "file too large to decode");
    info->format = fmt;
    /* PNG's IHDR gives the size at a fixed offset: check it before stb, which
     * refuses images over 1 GiB with a vaguer message. */
    if (!strcmp(fmt, "png") && len >= 24 && !memcmp(buf + 12, "IHDR", 4) &&
        (rc = check_size(name, (uint64_t)buf[16] << 24 | buf[17] << 16 | buf[18] << 8 | buf[19],
                         (uint64_t)buf[20] << 24 | buf[21] << 16 | buf[22] << 8 | buf[23], lim)))
        return rc;
    if (!stbi_info_from_memory(buf, (int)len, &w, &h, &comp))
        return gf_err(GF_EDATA, name, "cannot decode %s: %s", fmt, stbi_failure_reason());
    if ((rc = check_size(name, (uint64_t)w, (uint64_t)h, lim)))
        return rc;
    info->channels = comp;
    info->bits = stbi_is_16_bit_from_memory(buf, (int)len) ? 16 : 8;
    /* The file's own channel count is requested: stb's conversion of 16-bit
     * data to another count overflows its size arithmetic on large images. */
    if (info->bits == 16)
        px = stbi_load_16_from_memory(buf, (int)len, &w, &h, &comp, 0);
    else
        px = stbi_load_from_memory(buf, (int)len, &w, &h, &comp, 0);
    if (!px)
        return gf_err(GF_EDATA, name, "cannot decode %s: %s", fmt, stbi_failure_reason());
    if (comp == 1 && info->bits == 8) { /* already luma: adopt stb's buffer */
        out->width = w;
        out->height = h;
        out->stride = (size_t)w;
        out->data = px;
        return 0;
    }
    if ((rc = gf_image_alloc(out, w, h)) == 0) {
        if (info->bits == 8)
            luma8(px, comp, 255, (size_t)w * h, out->data, rgb);
        else
            luma16(px, 0, comp, 65535, (size_t)w * h, out->data, rgb);
    }
    stbi_image_free(px);
    return rc;
}

int gf_peek_size(const unsigned char *buf, size_t len, int *width, int *height)
{
    const char *fmt = sniff(buf, len);
    unsigned long w, h;
    size_t pos = 2;
    int comp;

    if (!fmt || len > INT_MAX)
        return -1;
    if (strcmp(fmt, "pnm"))
        return stbi_info_from_memory(buf, (int)len, width, height, &comp) ? 0 : -1;
    if (pnm_token(buf, len, &pos, &w) || pnm_token(buf, len, &pos, &h) || w > GF_MAX_DIM ||
        h > GF_MAX_DIM)
        return -1;
    *width = (int)w;
    *height = (int)h;
    return 0;
}

int gf_load(const char *path, const gf_limits *lim, gf_image *out, gf_load_info *info)
{
    unsigned char *buf;
    size_t len;
    int rc = gf_read_all(path, lim, &buf, &len);

    if (rc)
        return rc;
    rc = gf_decode(strcmp(path, "-") ? path : "(stdin)", buf, len, lim, out, info);
    free(buf);
    return rc;
}

gf_format gf_format_parse(const char *name)
{
    if (!strcmp(name, "png"))
        return GF_FMT_PNG;
    if (!strcmp(name, "pgm"))
        return GF_FMT_PGM;
    if (!strcmp(name, "jpeg") || !strcmp(name, "jpg"))
        return GF_FMT_JPEG;
    return GF_FMT_NONE;
}

const char *gf_format_name(gf_format f)
{
    return f == GF_FMT_PNG ? "png" : f == GF_FMT_PGM ? "pgm" : f == GF_FMT_JPEG ? "jpeg" : "none";
}

const char *gf_format_ext(gf_format f)
{
    return f == GF_FMT_JPEG ? "jpg" : gf_format_name(f);
}

/* The extension of path's last component (after its last dot), or NULL. */
static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');

    return dot && dot != name && dot[1] ? dot + 1 : NULL;
}

gf_format gf_format_from_name(const char *path)
{
    const char *ext = extension(path);

    if (!ext)
        return GF_FMT_NONE;
    if (!strcasecmp(ext, "png"))
        return GF_FMT_PNG;
    if (!strcasecmp(ext, "pgm"))
        return GF_FMT_PGM;
    if (!strcasecmp(ext, "jpg") || !strcasecmp(ext, "jpeg"))
        return GF_FMT_JPEG;
    return GF_FMT_NONE;
}

int gf_format_check_name(const char *path, gf_format *fmt, int explicit)
{
    const char *ext = extension(path);
    gf_format named = gf_format_from_name(path);

    if (ext && !named && !strchr(ext, '}'))
        return gf_err(GF_EUSAGE, path,
                      "%s images are not written; gpufilt writes PNG (.png), PGM (.pgm) and "
                      "JPEG (.jpg, .jpeg)",
                      ext);
    if (explicit && named && named != *fmt)
        return gf_err(GF_EUSAGE, path, "--format %s contradicts the name's extension",
                      gf_format_name(*fmt));
    if (!explicit)
        *fmt = named;
    if (!*fmt)
        return gf_err(GF_EUSAGE, path,
                      "cannot tell the output format from the name: give it an extension "
                      "(.png, .pgm, .jpg) or use --format png|pgm|jpeg");
    return 0;
}

static int encode_pgm(const gf_image *im, unsigned char **out, size_t *len)
{
    char hdr[64];
    int hl = snprintf(hdr, sizeof hdr, "P5\n%d %d\n255\n", im->width, im->height);
    size_t total = (size_t)hl + (size_t)im->width * (size_t)im->height;
    unsigned char *b = malloc(total);

    if (!b)
        return gf_err(GF_EINTERNAL, NULL, "out of memory encoding PGM");
    memcpy(b, hdr, (size_t)hl);
    for (int y = 0; y < im->height; y++)
        memcpy(b + hl + (size_t)y * im->width, im->data + (size_t)y * im->stride,
               (size_t)im->width);
    *out = b;
    *len = total;
    return 0;
}

static int encode_jpeg(const gf_image *im, int quality, unsigned char **out, size_t *len)
{
    tjhandle tj = tjInitCompress();
    unsigned char *buf = NULL;
    unsigned long size = 0;
    int rc = 0;

    if (!tj)
        return gf_err(GF_EINTERNAL, NULL, "JPEG encoder: %s", tjGetErrorStr2(NULL));
    if (tjCompress2(tj, im->data, im->width, (int)im->stride, im->height, TJPF_GRAY, &buf, &size,
                    TJSAMP_GRAY, quality, 0)) {
        rc = gf_err(GF_EINTERNAL, NULL, "JPEG encoder: %s", tjGetErrorStr2(tj));
    } else if (!(*out = malloc(size ? size : 1))) {
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory encoding JPEG");
    } else {
        memcpy(*out, buf, size);
        *len = size;
    }
    tjFree(buf);
    tjDestroy(tj);
    return rc;
}

int gf_encode(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (o->format == GF_FMT_PNG) {
        int n = 0;
        *out = gf_stb_png_encode(im->data, (int)im->stride, im->width, im->height, o->png_level,
                                 &n);
        if (!*out)
            return gf_err(GF_EINTERNAL, NULL, "PNG encoding failed (out of memory)");
        *len = (size_t)n;
        return 0;
    }
    if (o->format == GF_FMT_PGM)
        return encode_pgm(im, out, len);
    if (o->format == GF_FMT_JPEG)
        return encode_jpeg(im, o->quality, out, len);
    return gf_err(GF_EINTERNAL, NULL, "no output format");
}

/* Temporary output files not yet renamed, for gf_tmp_cleanup. A slot is
 * claimed atomically, so writer threads and a signal handler can share it. */
#define TMP_SLOTS 64
static char tmp_paths[TMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t tmp_used[TMP_SLOTS];

static int tmp_claim(void)
{
    for (int i = 0; i < TMP_SLOTS; i++) {
        sig_atomic_t expect = 0;
        if (__atomic_compare_exchange_n(&tmp_used[i], &expect, 1, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return i;
    }
    return -1;
}

void gf_tmp_cleanup(void)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_used[i] == 2)
            unlink(tmp_paths[i]);
}

static int write_all(int fd, const unsigned char *b, size_t n)
{
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

int gf_write(const char *path, const unsigned char *buf, size_t len)
{
    int rc = 0, slot = -1, fd = -1;
    const char *slash, *base;
    mode_t mask;

    if (!strcmp(path, "-")) {
        /* whole outputs, even from several batch workers */
        static pthread_mutex_t stdout_lock = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_lock(&stdout_lock);
        fflush(stdout);
        if (write_all(STDOUT_FILENO, buf, len))
            rc = gf_err(GF_EIO, "(stdout)", "write error: %s", strerror(errno));
        pthread_mutex_unlock(&stdout_lock);
        return rc;
    }
    slot = tmp_claim();
    if (slot < 0) {
        rc = gf_err(GF_EINTERNAL, path, "too many outputs in flight");
        goto out;
    }
    slash = strrchr(path, '/');
    base = slash ? slash + 1 : path;
    if (snprintf(tmp_paths[slot], PATH_MAX, "%.*s.%s.gpufilt-XXXXXX",
                 (int)(slash ? slash - path + 1 : 0), path, base) >= PATH_MAX) {
        rc = gf_err(GF_ECREATE, path, "path too long");
        goto out;
    }
    fd = mkostemp(tmp_paths[slot], O_CLOEXEC);
    if (fd < 0) {
        rc = gf_err(GF_ECREATE, path, "cannot create: %s", strerror(errno));
        goto out;
    }
    tmp_used[slot] = 2; /* from here on a signal removes it */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) || write_all(fd, buf, len)) {
        rc = gf_err(GF_EIO, path, "write error: %s", strerror(errno));
        goto out;
    }
    if (close(fd)) {
        fd = -1;
        rc = gf_err(GF_EIO, path, "write error: %s", strerror(errno));
        goto out;
    }
    fd = -1;
    if (rename(tmp_paths[slot], path)) {
        rc = gf_err(GF_ECREATE, path, "cannot create: %s", strerror(errno));
        goto out;
    }
    tmp_used[slot] = 1; /* renamed: nothing to remove */
out:
    if (fd >= 0)
        close(fd);
    if (slot >= 0) {
        if (tmp_used[slot] == 2)
            unlink(tmp_paths[slot]);
        tmp_used[slot] = 0;
    }
    return rc;
}

int gf_save(const char *path, const gf_image *im, const gf_encode_opts *o)
{
    unsigned char *buf;
    size_t len;
    int rc = gf_encode(im, o, &buf, &len);

    if (rc == 0)
        rc = gf_write(path, buf, len);
    free(buf);
    return rc;
}
