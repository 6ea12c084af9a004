/* test_geometry.c - resize and crop geometry against ImageMagick itself: random
 * input sizes and random geometries of every form, each also given to
 * /usr/bin/convert (the Debian package, 6.9.11), whose answer must equal
 * gf_geometry_resize's and gf_crop_region's. Many cases go to one convert
 * process, each in its own parentheses; a case's canvas colour (xc:#NNNNNN,
 * NNNNNN its index) names it in convert's error and warning messages. The
 * parse refusals are tables. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fileno, vasprintf (the Makefile defines it too) */
#endif
#include "common.h"

#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <sys/wait.h>

#include "../../src/geometry.h"

extern char **environ;

/* The real ImageMagick: /usr/local/bin/convert is a stand-in. */
#define CONVERT "/usr/bin/convert"

#define RESIZE_CASES 400
#define CROP_CASES 300
#define BATCH 50            /* cases per convert process */
#define MAX_SIDE 5000       /* input sides are 1..MAX_SIDE */
#define MAX_AREA 4000000.0  /* pixels of an input, and of a resize's output at most: keeps
                               convert's work, and the test, short */
#define CONVERT_SIDE 16000  /* Debian's policy.xml refuses wider or taller images */
#define MAX_TILES 64        /* "WxH" alone makes convert cut every tile: only so many */

static int have_convert(void)
{
    if (access(CONVERT, X_OK) == 0)
        return 1;
    fprintf(stderr, "test_geometry: %s is missing (Debian's imagemagick package): "
                    "the comparisons with ImageMagick are skipped\n", CONVERT);
    return 0;
}

/* Reads all of f, from its start, into a string the caller frees. */
static char *slurp(FILE *f)
{
    long len;
    char *s;

    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    s = malloc((size_t)len + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)len, f), (size_t)len);
    s[len] = 0;
    return s;
}

/* Runs convert with args (NULL-terminated, without argv[0]); returns its
 * standard output and error in *out and *err (the caller frees them).
 * convert's exit status is not checked: it is 1 after any failed resize,
 * which the cases expect. */
static void run_convert(char **args, char **out, char **err)
{
    FILE *fo = tmpfile(), *fe = tmpfile();
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status, nargs = 0;
    char **argv;

    assert_non_null(fo);
    assert_non_null(fe);
    while (args[nargs])
        nargs++;
    argv = calloc((size_t)nargs + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = CONVERT;
    memcpy(argv + 1, args, (size_t)nargs * sizeof *argv);
    assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&fa, fileno(fo), 1), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&fa, fileno(fe), 2), 0);
    assert_int_equal(posix_spawn(&pid, CONVERT, &fa, NULL, argv, environ), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    if (!WIFEXITED(status))
        fail_msg("%s died (status %d)", CONVERT, status);
    *out = slurp(fo);
    *err = slurp(fe);
    fclose(fo);
    fclose(fe);
}

/* A growing argument list; every string is the list's own copy. */
typedef struct {
    char **v;
    int n, cap;
} arglist;

static void arg(arglist *a, const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    assert_true(vasprintf(&s, fmt, ap) >= 0);
    va_end(ap);
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->v = realloc(a->v, (size_t)a->cap * sizeof *a->v);
        assert_non_null(a->v);
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

/* Ends a batch of parenthesised cases (one image left for convert to end
 * on, written nowhere) and runs it. */
static void run_batch(arglist *a, char **out, char **err)
{
    arg(a, "-size");
    arg(a, "1x1");
    arg(a, "xc:");
    arg(a, "null:");
    run_convert(a->v, out, err);
}

static void args_free(arglist *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

/* Whether convert's messages (err) name case i's canvas, "#NNNNNN". */
static int names_case(const char *err, int i)
{
    char tag[16];
    snprintf(tag, sizeof tag, "`#%06x'", i);
    return strstr(err, tag) != NULL;
}

/* Finds case i's line ("cI ...") in out; NULL when missing. */
static const char *case_line(const char *out, int i)
{
    char tag[16];
    size_t k = (size_t)snprintf(tag, sizeof tag, "c%d ", i);
    const char *p = out;
    while (p && *p) {
        if (!strncmp(p, tag, k))
            return p + k;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return NULL;
}

/* Uniform in [lo, hi]. */
static long uniform(long lo, long hi)
{
    uint64_t r = (uint64_t)test_rand() << 32 | test_rand();
    return lo + (long)(r % (uint64_t)(hi - lo + 1));
}

/* Log-uniform in [lo, hi] (lo >= 1): small values as often as large ones. */
static long log_uniform(long lo, long hi)
{
    double u = (double)test_rand() / 4294967296.0;
    long v = (long)floor(exp(log((double)lo) + u * (log((double)hi + 1) - log((double)lo))));
    return v < lo ? lo : v > hi ? hi : v;
}

static int is_prime(long n)
{
    if (n < 2)
        return 0;
    for (long d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

/* An input side: 1, a prime, log-uniform or uniform in 1..MAX_SIDE. */
static int random_side(void)
{
    unsigned k = test_rand() % 10;
    if (k == 0)
        return 1;
    if (k <= 2) {
        long p = uniform(2, MAX_SIDE);
        while (!is_prime(p))
            p = p > 2 ? p - 1 : 2;
        return (int)p;
    }
    return (int)(k <= 6 ? log_uniform(1, MAX_SIDE) : uniform(1, MAX_SIDE));
}

/* An input size of at most MAX_AREA pixels. */
static void random_size(int *w, int *h)
{
    do {
        *w = random_side();
        *h = random_side();
    } while ((double)*w * *h > MAX_AREA);
}

/* A size for a geometry near an input side s, as text: the side itself, the
 * other side o, a multiple of s, or anything; now and then with decimals. */
static void size_text(char *buf, size_t n, int s, int o)
{
    unsigned k = test_rand() % 8;
    double v = k == 0 ? s : k == 1 ? o : k <= 4 ? s * exp((double)uniform(-4000, 1400) / 1000.0)
                                                : (double)log_uniform(1, MAX_SIDE);
    if (v < 1)
        v = 1;
    if (test_rand() % 6 == 0)
        snprintf(buf, n, "%.*f", (int)(test_rand() % 3) + 1, floor(v) + (test_rand() % 1000) / 1000.0);
    else
        snprintf(buf, n, "%ld", (long)floor(v + 0.5));
}

/* A percentage as text: mostly 1..400, sometimes below 5 (where a side can
 * round to 0), sometimes with decimals. */
static void percent_text(char *buf, size_t n)
{
    unsigned k = test_rand() % 5;
    if (k == 0)
        snprintf(buf, n, "%.2f", (double)uniform(1, 500) / 100.0);
    else if (k == 1)
        snprintf(buf, n, "%.1f", (double)uniform(10, 4000) / 10.0);
    else
        snprintf(buf, n, "%ld", log_uniform(1, 400));
}

/* An offset as text, "+X+Y", "-X" and so on, which a resize ignores; its
 * first sign '+' where plus is set (after an open 'x', "-X" would be a
 * negative height, which gf_geometry_parse refuses). */
static void offset_text(char *buf, size_t n, int plus)
{
    const char first = plus || test_rand() % 2 ? '+' : '-';
    if (test_rand() % 2)
        snprintf(buf, n, "%c%ld%c%ld", first, uniform(0, 50), test_rand() % 2 ? '+' : '-',
                 uniform(0, 50));
    else
        snprintf(buf, n, "%c%ld", first, uniform(0, 50));
}

/* The forms random_geometry draws (resize_case.form), for the tally. */
enum {
    FORM_W, FORM_WX, FORM_XH, FORM_WXH, FORM_PERCENT, FORM_AREA, FORM_RATIO, FORMS
};
static const char *const form_names[FORMS] = {"W", "Wx", "xH", "WxH", "percent", "A@", "W:H"};

/* A random resize geometry for a w x h input, of any form convert takes
 * (W, Wx, xH, WxH, N%, N%x, N%xM%, NxM%, xN%, A@, W:H), with a random
 * subset of ! ^ > < in a random order, mostly after the sizes and now and
 * then before them; sometimes with spaces or an offset, which change
 * nothing. Returns the form. */
static int random_geometry(char *buf, size_t n, int w, int h)
{
    char a[32], b[32], flags[8], off[32] = "";
    int nf = 0, form;
    const char all[] = "!^><";

    switch (test_rand() % 14) {
    case 0:
    case 1:
        size_text(a, sizeof a, w, h);
        snprintf(buf, n, "%s", a);
        form = FORM_W;
        break;
    case 2:
    case 3:
        size_text(a, sizeof a, w, h);
        snprintf(buf, n, "%sx", a);
        form = FORM_WX;
        break;
    case 4:
    case 5:
        size_text(b, sizeof b, h, w);
        snprintf(buf, n, "x%s", b);
        form = FORM_XH;
        break;
    case 6:
    case 7:
    case 8:
        size_text(a, sizeof a, w, h);
        size_text(b, sizeof b, h, w);
        snprintf(buf, n, "%sx%s", a, b);
        form = FORM_WXH;
        break;
    case 9:
        percent_text(a, sizeof a);
        snprintf(buf, n, test_rand() % 2 ? "%s%%" : "%s%%x", a);
        form = FORM_PERCENT;
        break;
    case 10:
        percent_text(a, sizeof a);
        percent_text(b, sizeof b);
        snprintf(buf, n, test_rand() % 2 ? "%s%%x%s%%" : "%sx%s%%", a, b);
        form = FORM_PERCENT;
        break;
    case 11:
        percent_text(b, sizeof b);
        snprintf(buf, n, "x%s%%", b);
        form = FORM_PERCENT;
        break;
    case 12: {
        /* an area near the input's, or anything from 1 pixel */
        double v = test_rand() % 3 ? (double)w * h * exp((double)uniform(-5000, 1500) / 1000.0)
                                   : (double)log_uniform(1, 4000000);
        if (test_rand() % 6 == 0)
            v = (double)((long)sqrt(v) * (long)sqrt(v)); /* a square: sqrt exact */
        snprintf(buf, n, "%.0f@", v < 1 ? 1 : v);
        form = FORM_AREA;
        break;
    }
    default: {
        /* a ratio: small terms, the input's own, or decimals */
        unsigned k = test_rand() % 4;
        if (k == 0)
            snprintf(buf, n, "%d:%d", w, h);
        else if (k == 1)
            snprintf(buf, n, "%.2f:%.1f", (double)uniform(1, 900) / 100.0,
                     (double)uniform(1, 90) / 10.0);
        else
            snprintf(buf, n, "%ld:%ld", uniform(1, 21), uniform(1, 21));
        form = FORM_RATIO;
        break;
    }
    }
    for (int i = 0; i < 4; i++)
        if (test_rand() % 3 == 0)
            flags[nf++] = all[i];
    for (int i = nf - 1; i > 0; i--) {
        int j = (int)(test_rand() % (unsigned)(i + 1));
        char t = flags[i];
        flags[i] = flags[j];
        flags[j] = t;
    }
    flags[nf] = 0;
    if (strpbrk(buf, "x:") && test_rand() % 8 == 0) /* offsets follow an 'x' or ':' */
        offset_text(off, sizeof off, buf[strlen(buf) - 1] == 'x');
    if (nf && test_rand() % 8 == 0) { /* a flag before the sizes */
        char rest[32];
        snprintf(rest, sizeof rest, "%.31s", buf);
        snprintf(buf, n, "%c%.31s%.7s%.23s", flags[0], rest, flags + 1, off);
    } else {
        strncat(buf, flags, n - strlen(buf) - 1);
        strncat(buf, off, n - strlen(buf) - 1);
    }
    if (test_rand() % 10 == 0) { /* a space before the last character */
        size_t len = strlen(buf);
        if (len > 1 && len + 1 < n) {
            memmove(buf + len, buf + len - 1, 2);
            buf[len - 1] = ' ';
        }
    }
    return form;
}

/* A bound on each output side that any reading of the geometry stays under,
 * worked out from the numbers alone: the largest scale any rule could pick
 * (a given side over either input side, the percent, or the area's), or a
 * side as given. Cases above convert's limits or MAX_AREA are drawn
 * again. */
static int convert_can_take(const gf_geometry *g, int w, int h)
{
    double gw = g->flags & GF_GEOM_W ? g->w + 1 : 0, gh = g->flags & GF_GEOM_H ? g->h + 1 : 0;
    double s = g->flags & GF_GEOM_PERCENT ? fmax(gw, gh) / 100.0
                                           : fmax(fmax(gw / w, gw / h), fmax(gh / h, gh / w));
    if (g->flags & GF_GEOM_RATIO)
        s = gw = gh = 1; /* never larger than the input */
    if (g->flags & GF_GEOM_AREA) /* at most the area's size, whatever came before */
        s = sqrt(gw / ((double)w * h)), gw = gh = 1;
    double bw = fmax(fmax(w, gw), s * w + 1), bh = fmax(fmax(h, gh), s * h + 1);
    return bw <= CONVERT_SIDE && bh <= CONVERT_SIDE && bw * bh <= MAX_AREA;
}

typedef struct {
    int w, h;
    char geom[64];
    int form;       /* random_geometry's */
    int rc, ow, oh; /* gf_geometry_resize's answer */
} resize_case;

/* Checks cases first.. first + count - 1 with one convert; returns how many
 * convert refused. */
static int check_resize_batch(resize_case *c, int first, int count)
{
    int refused = 0;
    arglist a = {0};
    char *out, *err;

    arg(&a, "-filter"); /* the size does not depend on the filter; point is the fastest */
    arg(&a, "point");
    for (int i = first; i < first + count; i++) {
        arg(&a, "(");
        arg(&a, "-size");
        arg(&a, "%dx%d", c[i].w, c[i].h);
        arg(&a, "xc:#%06x", i);
        arg(&a, "-resize");
        arg(&a, "%s", c[i].geom);
        arg(&a, "-print");
        arg(&a, "c%d %%w %%h\\n", i);
        arg(&a, "+delete");
        arg(&a, ")");
    }
    run_batch(&a, &out, &err);
    for (int i = first; i < first + count; i++) {
        const char *line = case_line(out, i);
        int iw, ih;
        if (!line || sscanf(line, "%d %d", &iw, &ih) != 2)
            fail_msg("%dx%d -resize '%s': no answer from convert; its messages:\n%s", c[i].w,
                     c[i].h, c[i].geom, err);
        if (names_case(err, i)) {
            /* convert refused: a side of 0 ("negative or zero image size") */
            if (c[i].rc != -1 || !strstr(err, "negative or zero image size"))
                fail_msg("%dx%d -resize '%s': convert refuses, gf_geometry_resize gives "
                         "%d (%dx%d); convert says:\n%s",
                         c[i].w, c[i].h, c[i].geom, c[i].rc, c[i].ow, c[i].oh, err);
            refused++;
            continue;
        }
        if (c[i].rc != 0 || c[i].ow != iw || c[i].oh != ih)
            fail_msg("%dx%d -resize '%s': convert gives %dx%d, gf_geometry_resize %d (%dx%d)",
                     c[i].w, c[i].h, c[i].geom, iw, ih, c[i].rc, c[i].ow, c[i].oh);
    }
    free(out);
    free(err);
    args_free(&a);
    return refused;
}

static void test_resize_vs_convert(void **state)
{
    resize_case *c = calloc(RESIZE_CASES, sizeof *c);
    int flags[3] = {0}, forms[FORMS] = {0}, refused = 0; /* flags: ^, > or <, spaces */
    char tally[256] = "";
    (void)state;
    assert_non_null(c);
    if (!have_convert()) {
        free(c);
        skip();
    }
    for (int i = 0; i < RESIZE_CASES; i++) {
        gf_geometry g;
        char why[160];
        do {
            random_size(&c[i].w, &c[i].h);
            c[i].form = random_geometry(c[i].geom, sizeof c[i].geom, c[i].w, c[i].h);
            if (gf_geometry_parse(c[i].geom, &g, why, sizeof why))
                fail_msg("'%s' refused: %s", c[i].geom, why);
        } while (!convert_can_take(&g, c[i].w, c[i].h));
        c[i].ow = c[i].oh = -7; /* poison */
        c[i].rc = gf_geometry_resize(&g, c[i].w, c[i].h, &c[i].ow, &c[i].oh);
        if (c[i].rc == 0 && (c[i].ow < 1 || c[i].oh < 1))
            fail_msg("%dx%d '%s': %dx%d", c[i].w, c[i].h, c[i].geom, c[i].ow, c[i].oh);
        forms[c[i].form]++;
        flags[0] += !!(g.flags & GF_GEOM_COVER);
        flags[1] += !!(g.flags & (GF_GEOM_SHRINK | GF_GEOM_ENLARGE));
        flags[2] += strchr(c[i].geom, ' ') != NULL;
    }
    for (int i = 0; i < RESIZE_CASES; i += BATCH)
        refused += check_resize_batch(c, i, RESIZE_CASES - i < BATCH ? RESIZE_CASES - i : BATCH);
    for (int f = 0; f < FORMS; f++) {
        /* every form drawn at least once, or the seed is unlucky enough to say so */
        if (!forms[f])
            fail_msg("no case of the form %s was drawn", form_names[f]);
        snprintf(tally + strlen(tally), sizeof tally - strlen(tally), "%s%d %s",
                 f ? ", " : "", forms[f], form_names[f]);
    }
    fprintf(stderr,
            "resize: %d cases equal convert's (%s; %d ^, %d > or <, %d with a space; %d a side "
            "of 0)\n",
            RESIZE_CASES, tally, flags[0], flags[1], flags[2], refused);
    free(c);
}

/* Cases checked by hand with convert 6.9.11, each one of its quirks. */
static void test_resize_table(void **state)
{
    static const struct {
        int w, h;
        const char *geom;
        int rc, ow, oh;
    } cases[] = {
        {7, 5, "50%", 0, 4, 3},              /* 3.5 and 2.5 round up */
        {50, 10, "29%", 0, 15, 3},           /* 29 * 50 / 100 is 14.5 exactly; */
        {25, 10, "58%", 0, 15, 6},           /* 0.29 * 50 would round to 14 */
        {50, 50, "57%x29%", 0, 29, 15},
        {10, 10, "200%>", 0, 20, 20},        /* > and < do nothing with percent */
        {10, 10, "50%<", 0, 5, 5},
        {10, 10, "1%", -1, 0, 0},            /* 0x0: convert fails */
        {100, 40, "x50%", 0, 100, 20},       /* the width kept */
        {200, 50, "100^", 0, 400, 100},      /* the shorter side 100 */
        {200, 50, "200^", 0, 200, 50},       /* the width as the input's: unchanged */
        {50, 200, "x200^", 0, 200, 800},     /* ... but xH^ still covers */
        {200, 50, "x50^", 0, 200, 50},
        {150, 50, "100x100!>", 0, 100, 50},  /* > side by side */
        {80, 120, "100x100!<", 0, 100, 120}, /* < side by side */
        {150, 50, "300x300><", 0, 150, 50},  /* both: unchanged */
        {80, 120, "100x100<", 0, 80, 120},
        {1, 5000, "10", 0, 10, 50000},       /* the size asked (Debian's policy.xml then
                                                refuses convert an image this tall) */
        {5000, 1, "10", 0, 10, 1},           /* at least 1 */
        {1, 5000, "x10", 0, 1, 10},
        {300000, 1, "1000000%", -1, 0, 0},   /* 3e9 x 1e4: above INT_MAX */
        {100, 100, "100.5x20!", 0, 101, 20}, /* rounded half up */
        {384, 303, "10x", 0, 10, 8},         /* Wx: W, the height from the aspect */
        {384, 303, "200x^", 0, 253, 200},    /* the shorter side 200 */
        {384, 303, "384^", 0, 384, 303},     /* the input's width: unchanged ... */
        {384, 303, "384x^", 0, 487, 384},    /* ... but Wx^ reads a height of 0 and covers */
        {384, 303, "10x>", 0, 10, 8},
        {384, 303, "10x<", 0, 384, 303},
        {384, 303, "10x!", 0, 10, 303},      /* ! keeps the height not given */
        {384, 303, "10 x 20 +3+4", 0, 10, 8}, /* spaces and an offset change nothing */
        {384, 303, "10x%", 0, 38, 30},       /* N%x: both sides */
        {384, 303, "10000@", 0, 112, 88},    /* at most 10000 pixels, truncated */
        {384, 303, "200x50@", 0, 15, 12},    /* fit 200x50, then 200 pixels at most */
        {50, 50, "10000@", 0, 100, 100},     /* @ enlarges too */
        {384, 303, "4:3", 0, 384, 288},      /* squeezed to the ratio */
        {384, 303, "3:4^", 0, 227, 303},
        {384, 303, "1@", -1, 0, 0},          /* 1x0: convert fails */
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gf_geometry g;
        char why[160];
        int ow = -7, oh = -7, rc;
        if (gf_geometry_parse(cases[i].geom, &g, why, sizeof why))
            fail_msg("'%s' refused: %s", cases[i].geom, why);
        rc = gf_geometry_resize(&g, cases[i].w, cases[i].h, &ow, &oh);
        if (rc != cases[i].rc || (rc == 0 && (ow != cases[i].ow || oh != cases[i].oh)) ||
            (rc != 0 && (ow != -7 || oh != -7)))
            fail_msg("%dx%d '%s': %d %dx%d, want %d %dx%d", cases[i].w, cases[i].h,
                     cases[i].geom, rc, ow, oh, cases[i].rc, cases[i].ow, cases[i].oh);
    }
    {
        gf_geometry g = {10, 10, GF_GEOM_W | GF_GEOM_H};
        int ow, oh;
        assert_int_equal(gf_geometry_resize(&g, 0, 5, &ow, &oh), -1);
        assert_int_equal(gf_geometry_resize(&g, 5, -1, &ow, &oh), -1);
        assert_int_equal(gf_geometry_resize(NULL, 5, 5, &ow, &oh), -1);
        g.flags = 0;
        assert_int_equal(gf_geometry_resize(&g, 5, 5, &ow, &oh), -1);
    }
}

static void test_resize_parse(void **state)
{
    static const struct {
        const char *s;
        double w, h;
        unsigned flags;
    } ok[] = {
        {"640", 640, 0, GF_GEOM_W},
        {"x480", 0, 480, GF_GEOM_H},
        {"640x480", 640, 480, GF_GEOM_W | GF_GEOM_H},
        {"640X480!", 640, 480, GF_GEOM_W | GF_GEOM_H | GF_GEOM_EXACT},
        {"64.5x3^", 64.5, 3, GF_GEOM_W | GF_GEOM_H | GF_GEOM_COVER},
        {"50%", 50, 50, GF_GEOM_W | GF_GEOM_H | GF_GEOM_PERCENT},
        {"50%>", 50, 50, GF_GEOM_W | GF_GEOM_H | GF_GEOM_PERCENT | GF_GEOM_SHRINK},
        {"50%x25%", 50, 25, GF_GEOM_W | GF_GEOM_H | GF_GEOM_PERCENT},
        {"50x25%", 50, 25, GF_GEOM_W | GF_GEOM_H | GF_GEOM_PERCENT},
        {"x25%", 0, 25, GF_GEOM_H | GF_GEOM_PERCENT},
        {"1e3<", 1000, 0, GF_GEOM_W | GF_GEOM_ENLARGE},
        {"10x20^><!", 10, 20, GF_GEOM_W | GF_GEOM_H | GF_GEOM_COVER | GF_GEOM_SHRINK |
                                  GF_GEOM_ENLARGE | GF_GEOM_EXACT},
        {"1000000x0.5", 1000000, 0.5, GF_GEOM_W | GF_GEOM_H},
        {"10x", 10, 0, GF_GEOM_W | GF_GEOM_OPEN},
        {"200x^", 200, 0, GF_GEOM_W | GF_GEOM_OPEN | GF_GEOM_COVER},
        {"10x>", 10, 0, GF_GEOM_W | GF_GEOM_OPEN | GF_GEOM_SHRINK},
        {"10X<", 10, 0, GF_GEOM_W | GF_GEOM_OPEN | GF_GEOM_ENLARGE},
        {"10x+3", 10, 0, GF_GEOM_W},
        {"50%x", 50, 50, GF_GEOM_W | GF_GEOM_H | GF_GEOM_PERCENT | GF_GEOM_OPEN},
        {" 10 x 8 ", 10, 8, GF_GEOM_W | GF_GEOM_H},
        {"!10x20", 10, 20, GF_GEOM_W | GF_GEOM_H | GF_GEOM_EXACT},
        {"10!!", 10, 0, GF_GEOM_W | GF_GEOM_EXACT},
        {"50%%", 50, 50, GF_GEOM_W | GF_GEOM_H | GF_GEOM_PERCENT},
        {"10x20+3+4", 10, 20, GF_GEOM_W | GF_GEOM_H},
        {"10x20-3-4.5", 10, 20, GF_GEOM_W | GF_GEOM_H},
        {"x20+3", 0, 20, GF_GEOM_H},
        {"10000@", 10000, 0, GF_GEOM_W | GF_GEOM_AREA},
        {"100x200@>", 100, 200, GF_GEOM_W | GF_GEOM_H | GF_GEOM_AREA | GF_GEOM_SHRINK},
        {"1e12@", 1e12, 0, GF_GEOM_W | GF_GEOM_AREA},
        {"4:3", 4, 3, GF_GEOM_W | GF_GEOM_H | GF_GEOM_RATIO},
        {"0.5:2.25+1+1", 0.5, 2.25, GF_GEOM_W | GF_GEOM_H | GF_GEOM_RATIO},
    };
    static const char *bad[] = {
        "0x0",     "-5x3",   "x",       "abc%",     "",         "5x5+",    "10xabc", "1e9x1e9",
        "0x5",     "5x0",    "0.4",     "0%",       "10x-3",    "4:3:2",   "100@x:3",  "1000001",
        "1000001%", "1e999", "x-5",     ".",        "1e",       "0x10",    "10+5",   "10+5+5",
        "x+1+1",   "+1+1",   "@",       "x100@",    "50%@",     "4:3%",    "4:3@",   "4:",
        ":3",      "0:3",    "4:0",     "10x20+1+1+1", "(10)",  "10,20",   "10/20",  "1e13@",
        "0.4@",    "10x20x30", "10xx20", "%",       "!",        "10x20+",  "10x20+1+",
    };
    char why[160];
    (void)state;
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        gf_geometry g;
        memset(&g, 0x55, sizeof g);
        if (gf_geometry_parse(ok[i].s, &g, why, sizeof why))
            fail_msg("'%s' refused: %s", ok[i].s, why);
        if (g.flags != ok[i].flags || (g.flags & GF_GEOM_W && g.w != ok[i].w) ||
            (g.flags & GF_GEOM_H && g.h != ok[i].h))
            fail_msg("'%s': %g x %g flags %u", ok[i].s, g.w, g.h, g.flags);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gf_geometry g = {1, 2, 3}, keep = g;
        char quoted[80];
        if (gf_geometry_parse(bad[i], &g, why, sizeof why) != -1)
            fail_msg("'%s' taken", bad[i]);
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        if (!strstr(why, quoted) || !strncmp(why, "gpufilt", 7))
            fail_msg("'%s': reason \"%s\"", bad[i], why);
        assert_memory_equal(&g, &keep, sizeof g);
    }
    assert_int_equal(gf_geometry_parse("abc%", &(gf_geometry){0}, why, sizeof why), -1);
    assert_string_equal(why,
                        "a size must be W, Wx, xH, WxH, N%, A@ or W:H, with ! ^ > or <, not 'abc%'");
    assert_int_equal(gf_geometry_parse("1e9x1e9", &(gf_geometry){0}, why, sizeof why), -1);
    assert_non_null(strstr(why, "at most 1000000"));
    assert_int_equal(gf_geometry_parse("-5x3", &(gf_geometry){0}, why, sizeof why), -1);
    assert_non_null(strstr(why, "negative"));
    /* A short buffer is still a string; none at all is allowed. */
    assert_int_equal(gf_geometry_parse("abc", &(gf_geometry){0}, why, 5), -1);
    assert_int_equal(strlen(why), 4);
    assert_int_equal(gf_geometry_parse("abc", &(gf_geometry){0}, NULL, 0), -1);
}

typedef struct {
    int w, h;
    char geom[64], sent[64]; /* sent: what convert gets (geom, or geom+0+0 for many tiles) */
    gf_crop c;
    int rc, x, y, cw, ch; /* gf_crop_region's answer */
} crop_case;

/* The rectangle by its definition: the image's columns and rows that the
 * crop's span covers, counted one by one. Returns 0, or -1 where none. */
static int brute_crop(const crop_case *k, int *x, int *y, int *cw, int *ch)
{
    int first[2] = {-1, -1}, count[2] = {0, 0}, size[2] = {k->w, k->h};
    long pos[2] = {k->c.x, k->c.y}, len[2] = {k->c.w, k->c.h};
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < size[d]; i++)
            if (i >= pos[d] && i < pos[d] + len[d]) {
                if (first[d] < 0)
                    first[d] = i;
                count[d]++;
            }
    if (!count[0] || !count[1])
        return -1;
    *x = first[0];
    *y = first[1];
    *cw = count[0];
    *ch = count[1];
    return 0;
}

/* A crop offset along a side of n pixels for a span of len: 0, an edge case
 * (just inside or just outside either end), mostly one where the span meets
 * the side, sometimes anywhere around it. */
static long random_offset(int n, long len)
{
    switch (test_rand() % 12) {
    case 0:
    case 1:
        return 0;
    case 2:
        return n; /* at the far edge: outside */
    case 3:
        return n - 1;
    case 4:
        return -len; /* ends at the near edge: outside */
    case 5:
        return -len + 1;
    case 6:
        return uniform(-2 * len, 2L * n);
    default:
        return uniform(-len + 1, n - 1);
    }
}

static void check_crop_batch(crop_case *k, int first, int count)
{
    arglist a = {0};
    char *out, *err;

    for (int i = first; i < first + count; i++) {
        arg(&a, "(");
        arg(&a, "-size");
        arg(&a, "%dx%d", k[i].w, k[i].h);
        arg(&a, "xc:#%06x", i);
        arg(&a, "-crop");
        arg(&a, "%s", k[i].sent);
        arg(&a, "-delete"); /* the first tile is the region at +0+0 */
        arg(&a, "1--1");
        arg(&a, "-print"); /* the page offset: where the cut began */
        arg(&a, "c%d %%X %%Y ", i);
        arg(&a, "+repage");
        arg(&a, "-print");
        arg(&a, "%%w %%h %%X %%Y\\n");
        arg(&a, "+delete");
        arg(&a, ")");
    }
    run_batch(&a, &out, &err);
    for (int i = first; i < first + count; i++) {
        const crop_case *c = &k[i];
        const char *line = case_line(out, i);
        int px, py, iw, ih, rx, ry, bx = 0, by = 0, bw = 0, bh = 0;
        int brc = brute_crop(c, &bx, &by, &bw, &bh);
        if (!line || sscanf(line, "%d %d %d %d %d %d", &px, &py, &iw, &ih, &rx, &ry) != 6)
            fail_msg("%dx%d -crop '%s': no answer from convert; its messages:\n%s", c->w, c->h,
                     c->sent, err);
        if (names_case(err, i)) {
            /* "geometry does not contain image" */
            if (c->rc != -1 || brc != -1 || !strstr(err, "does not contain image"))
                fail_msg("%dx%d -crop '%s': convert finds it outside, gf_crop_region gives "
                         "%d (%dx%d+%d+%d), the definition %d; convert says:\n%s",
                         c->w, c->h, c->sent, c->rc, c->cw, c->ch, c->x, c->y, brc, err);
            continue;
        }
        if (c->rc != 0 || brc != 0 || c->cw != iw || c->ch != ih || c->x != px || c->y != py ||
            bw != iw || bh != ih || bx != px || by != py || rx != 0 || ry != 0)
            fail_msg("%dx%d -crop '%s': convert cuts %dx%d+%d+%d (after +repage +%d+%d), "
                     "gf_crop_region %d %dx%d+%d+%d, the definition %d %dx%d+%d+%d",
                     c->w, c->h, c->sent, iw, ih, px, py, rx, ry, c->rc, c->cw, c->ch, c->x,
                     c->y, brc, bw, bh, bx, by);
    }
    free(out);
    free(err);
    args_free(&a);
}

static void test_crop_vs_convert(void **state)
{
    crop_case *k = calloc(CROP_CASES, sizeof *k);
    int outside = 0;
    (void)state;
    assert_non_null(k);
    if (!have_convert()) {
        free(k);
        skip();
    }
    for (int i = 0; i < CROP_CASES; i++) {
        crop_case *c = &k[i];
        char why[160];
        long cw, ch;
        random_size(&c->w, &c->h);
        cw = test_rand() % 2 ? uniform(1, c->w + c->w / 2 + 1) : log_uniform(1, MAX_SIDE);
        ch = test_rand() % 2 ? uniform(1, c->h + c->h / 2 + 1) : log_uniform(1, MAX_SIDE);
        if (test_rand() % 5 == 0) {
            snprintf(c->geom, sizeof c->geom, "%ldx%ld", cw, ch);
            /* convert cuts "WxH" into tiles; past MAX_TILES, ask for the first alone */
            if ((double)((c->w + cw - 1) / cw) * (double)((c->h + ch - 1) / ch) > MAX_TILES)
                snprintf(c->sent, sizeof c->sent, "%s+0+0", c->geom);
            else
                snprintf(c->sent, sizeof c->sent, "%s", c->geom);
        } else {
            long x = random_offset(c->w, cw), y = random_offset(c->h, ch);
            snprintf(c->geom, sizeof c->geom, "%ldx%ld%c%ld%c%ld", cw, ch, x < 0 ? '-' : '+',
                     labs(x), y < 0 ? '-' : '+', labs(y));
            snprintf(c->sent, sizeof c->sent, "%s", c->geom);
        }
        if (gf_crop_parse(c->geom, &c->c, why, sizeof why))
            fail_msg("'%s' refused: %s", c->geom, why);
        c->x = c->y = c->cw = c->ch = -7; /* poison */
        c->rc = gf_crop_region(&c->c, c->w, c->h, &c->x, &c->y, &c->cw, &c->ch);
        outside += c->rc == -1;
    }
    for (int i = 0; i < CROP_CASES; i += BATCH)
        check_crop_batch(k, i, CROP_CASES - i < BATCH ? CROP_CASES - i : BATCH);
    fprintf(stderr, "crop: %d cases equal convert's (%d wholly outside)\n", CROP_CASES, outside);
    free(k);
}

static void test_crop_parse(void **state)
{
    static const struct {
        const char *s;
        long w, h, x, y;
    } ok[] = {
        {"10x20", 10, 20, 0, 0},         {"10x20+3+4", 10, 20, 3, 4},
        {"10x20-5+0", 10, 20, -5, 0},    {"1x1-1000000-1000000", 1, 1, -1000000, -1000000},
        {"1000000X7+0-2", 1000000, 7, 0, -2},
    };
    static const char *bad[] = {"",      "x",       "10",     "10x",     "5x5+",   "5x5+3",
                                "5x5+3+", "10xabc", "0x5",    "5x0",     "0x0",    "-5x3",
                                "5x-3",   "5x5++3+3", "5x5+3+3+3", "5.5x3", "50%x50%", "1e3x5",
                                "5x5 +1+1", "1000001x5", "5x5+1000001+0", "5x5+1-", "5x5!"};
    char why[160];
    (void)state;
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        gf_crop c;
        memset(&c, 0x55, sizeof c);
        if (gf_crop_parse(ok[i].s, &c, why, sizeof why))
            fail_msg("'%s' refused: %s", ok[i].s, why);
        if (c.w != ok[i].w || c.h != ok[i].h || c.x != ok[i].x || c.y != ok[i].y)
            fail_msg("'%s': %ldx%ld%+ld%+ld", ok[i].s, c.w, c.h, c.x, c.y);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gf_crop c = {1, 2, 3, 4}, keep = c;
        char quoted[80];
        if (gf_crop_parse(bad[i], &c, why, sizeof why) != -1)
            fail_msg("'%s' taken", bad[i]);
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        if (!strstr(why, quoted))
            fail_msg("'%s': reason \"%s\"", bad[i], why);
        assert_memory_equal(&c, &keep, sizeof c);
    }
}

/* Edges by hand: convert 6.9.11 warns "geometry does not contain image" for
 * each -1 here. */
static void test_crop_table(void **state)
{
    static const struct {
        int w, h;
        gf_crop c;
        int rc, x, y, cw, ch;
    } cases[] = {
        {10, 10, {5, 5, 9, 9}, 0, 9, 9, 1, 1},
        {10, 10, {5, 5, -4, 0}, 0, 0, 0, 1, 5},
        {10, 10, {5, 5, 10, 0}, -1, 0, 0, 0, 0}, /* convert leaves the image uncut */
        {10, 10, {5, 5, 11, 0}, -1, 0, 0, 0, 0}, /* convert gives 1x1 */
        {10, 10, {5, 5, -5, 0}, -1, 0, 0, 0, 0},
        {10, 10, {5, 5, 0, 10}, -1, 0, 0, 0, 0},
        {10, 10, {50, 50, -20, -20}, 0, 0, 0, 10, 10},
        {1, 1, {1, 1, 0, 0}, 0, 0, 0, 1, 1},
        {7, 5, {LONG_MAX, LONG_MAX, LONG_MIN, LONG_MIN}, -1, 0, 0, 0, 0},
        {7, 5, {LONG_MAX, LONG_MAX, -3, 2}, 0, 0, 2, 7, 3},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int x = -7, y = -7, cw = -7, ch = -7;
        int rc = gf_crop_region(&cases[i].c, cases[i].w, cases[i].h, &x, &y, &cw, &ch);
        if (rc != cases[i].rc ||
            (rc == 0 && (x != cases[i].x || y != cases[i].y || cw != cases[i].cw ||
                         ch != cases[i].ch)) ||
            (rc != 0 && (x != -7 || y != -7 || cw != -7 || ch != -7)))
            fail_msg("case %zu: %d %dx%d+%d+%d", i, rc, cw, ch, x, y);
    }
    {
        gf_crop c = {0, 5, 0, 0};
        int x, y, cw, ch;
        assert_int_equal(gf_crop_region(&c, 5, 5, &x, &y, &cw, &ch), -1);
        c.w = 5;
        assert_int_equal(gf_crop_region(&c, 0, 5, &x, &y, &cw, &ch), -1);
        assert_int_equal(gf_crop_region(NULL, 5, 5, &x, &y, &cw, &ch), -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resize_parse),    cmocka_unit_test(test_resize_table),
        cmocka_unit_test(test_resize_vs_convert), cmocka_unit_test(test_crop_parse),
        cmocka_unit_test(test_crop_table),      cmocka_unit_test(test_crop_vs_convert),
    };
    (void)test_state(); /* prints the seed first */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
