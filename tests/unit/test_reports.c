/* test_reports.c - report files written from several threads at once, as
 * batch workers do: every file equals the one written alone. make test-tsan
 * runs it under ThreadSanitizer, which flags any state the writers share
 * (the plot code once kept a static row buffer). Also: plot sizes and
 * SVG text. */
#include "common.h"

#include <pthread.h>

#include "../../src/report/files.h"
#include "../../src/report/plot.h"

#define THREADS 6
#define ROUNDS 4

static char dir[] = "/tmp/gf-reports-XXXXXX";
static uint32_t bins[256], sums[300];

static const char *const kinds[] = {"png", "svg", "csv", "json"};

/* Writes stage s's result as every kind of report, named by tag. */
static void write_all(const gf_stage *s, const gf_result *r, const char *tag)
{
    char path[256];
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s-%s.%s", dir, tag, s->ops->name, kinds[k]);
        if (gf_report_write(s, r, path))
            fail_msg("%s: %s", path, gf_errmsg());
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(*len + 1);
    assert_int_equal(fread(buf, 1, *len, f), *len);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

static gf_stage hist, colsum;
static gf_result hres, cres;

static void *worker(void *arg)
{
    char tag[32];
    for (int round = 0; round < ROUNDS; round++) {
        snprintf(tag, sizeof tag, "t%d-%d", (int)(intptr_t)arg, round);
        write_all(&hist, &hres, tag);
        write_all(&colsum, &cres, tag);
    }
    return NULL;
}

static void setup_stages(void)
{
    gf_stage_init(&hist, gf_stage_find("hist"));
    hist.mods.log = 1;
    gf_stage_init(&colsum, gf_stage_find("colsum"));
    colsum.mods.plot_w = 640;
    colsum.mods.plot_h = 300;
    for (int i = 0; i < 256; i++)
        bins[i] = test_rand() % 100000;
    for (int i = 0; i < 300; i++)
        sums[i] = test_rand() % 70000;
    hres = (gf_result){"in.png", {300, 200, 1, 8}, 256, bins};
    cres = (gf_result){"in.png", {300, 200, 1, 8}, 300, sums};
}

static void test_parallel(void **state)
{
    pthread_t t[THREADS];
    (void)state;
    assert_non_null(mkdtemp(dir));
    setup_stages();
    write_all(&hist, &hres, "alone");
    write_all(&colsum, &cres, "alone");
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        for (int round = 0; round < ROUNDS; round++)
            for (int k = 0; k < 4; k++)
                for (int st = 0; st < 2; st++) {
                    char a[256], b[256];
                    size_t la, lb;
                    const char *name = st ? "colsum" : "hist";
                    snprintf(a, sizeof a, "%s/alone-%s.%s", dir, name, kinds[k]);
                    snprintf(b, sizeof b, "%s/t%d-%d-%s.%s", dir, i, round, name, kinds[k]);
                    char *x = slurp(a, &la), *y = slurp(b, &lb);
                    assert_int_equal(la, lb);
                    assert_memory_equal(x, y, la);
                    free(x);
                    free(y);
                }
}

/* The plot files: PNG of the size asked, SVG with its texts. */
static void test_plot_files(void **state)
{
    char path[256], *svg;
    size_t len;
    (void)state;
    snprintf(path, sizeof path, "%s/alone-colsum.png", dir);
    svg = slurp(path, &len);
    /* PNG IHDR: width and height big-endian at 16 and 20 */
    assert_int_equal(((unsigned char)svg[18] << 8) | (unsigned char)svg[19], 640);
    assert_int_equal(((unsigned char)svg[22] << 8) | (unsigned char)svg[23], 300);
    free(svg);
    snprintf(path, sizeof path, "%s/alone-hist.svg", dir);
    svg = slurp(path, &len);
    assert_non_null(strstr(svg, ">Histogram of in.png (300x200)</text>"));
    assert_non_null(strstr(svg, ">value</text>"));
    assert_non_null(strstr(svg, ">pixels (log scale)</text>"));
    assert_non_null(strstr(svg, ">10\u2074</text>")); /* log ticks are powers of ten */
    assert_non_null(strstr(svg, "width=\"800\" height=\"450\""));
    free(svg);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    assert_int_equal(system(path), 0);
}

/* Round ticks: a step of 1, 2 or 5 times a power of ten, at most 10 ticks. */
static void test_ticks(void **state)
{
    (void)state;
    for (int i = 0; i < 2000; i++) {
        double max = i < 20 ? i : (double)(test_rand() % 100000000), top;
        double step = gf_plot_ticks(max, &top), m = step;
        while (m >= 10)
            m /= 10;
        assert_true(m == 1 || m == 2 || m == 5);
        assert_true(top >= max && top - step < (max < 1 ? 1 : max));
        assert_true(top / step <= 10);
        if (max >= 50)
            assert_true(top / step >= 5 - 1e-9 || top / step >= 4);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel),
        cmocka_unit_test(test_plot_files),
        cmocka_unit_test(test_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
