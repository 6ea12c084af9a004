/* test_cli.c - the command line into a plan: stages in order from the
 * registry's options, settings, modifiers, variants, outputs and the usage
 * errors. */
#include "common.h"

#include "../../src/cli.h"
#include "../../src/stages/mean.h"
#include "../../src/stages/orient.h"
#include "../../src/stages/threshold.h"
#include "../../src/stages/tone.h"

/* Parses the words of `line` (split at spaces; "''" is an empty word). */
static int parse(const char *line, gf_plan *p)
{
    static char buf[1024];
    static char *argv[64];
    int argc = 0;

    snprintf(buf, sizeof buf, "gpufilt %s", line);
    for (char *s = strtok(buf, " "); s && argc < 63; s = strtok(NULL, " "))
        argv[argc++] = strcmp(s, "''") ? s : (char *)"";
    argv[argc] = NULL;
    return gf_cli_parse(argc, argv, p);
}

static void ok(const char *line, gf_plan *p)
{
    if (parse(line, p))
        fail_msg("'%s': %s", line, gf_errmsg());
}

static void usage_error(const char *line, const char *msg)
{
    gf_plan p;
    if (parse(line, &p) != GF_EUSAGE)
        fail_msg("'%s' was accepted", line);
    if (msg && !strstr(gf_errmsg(), msg))
        fail_msg("'%s': '%s' does not say '%s'", line, gf_errmsg(), msg);
}

static void test_stages_in_order(void **state)
{
    gf_plan p;
    (void)state;
    ok("in.png -o out.png --mean 5 --threshold otsu --rotate 180 --transpose --hist h.csv --mean 3",
       &p);
    assert_int_equal(p.nstages, 6);
    assert_string_equal(p.stages[0].ops->name, "mean");
    assert_int_equal(GF_CPARAMS(&p.stages[0], gf_mean_params)->kw, 5);
    assert_int_equal(GF_CPARAMS(&p.stages[0], gf_mean_params)->kh, 5);
    assert_string_equal(p.stages[1].ops->name, "threshold");
    assert_int_equal(GF_CPARAMS(&p.stages[1], gf_threshold_params)->otsu, 1);
    assert_string_equal(p.stages[2].ops->name, "mirror");
    assert_int_equal(GF_CPARAMS(&p.stages[2], gf_orient_params)->op, GF_ROTATE180);
    assert_string_equal(p.stages[3].ops->name, "transpose");
    assert_string_equal(p.stages[4].ops->name, "hist");
    assert_string_equal(p.stages[4].path, "h.csv");
    assert_int_equal(GF_CPARAMS(&p.stages[5], gf_mean_params)->kw, 3);
    assert_int_equal(p.format, GF_FMT_PNG);
    assert_string_equal(p.inputs[0], "in.png");
    assert_int_equal(p.batch, 0);
}

static void test_settings_and_modifiers(void **state)
{
    gf_plan p;
    (void)state;
    /* --border applies to every mean, wherever it is given */
    ok("in.png --mean 3 --hist h.csv --mean 5 --border constant=7", &p);
    for (int i = 0; i < p.nstages; i += 2) {
        const gf_mean_params *m = GF_CPARAMS(&p.stages[i], gf_mean_params);
        assert_int_equal(m->border.mode, GF_BORDER_CONSTANT);
        assert_int_equal(m->border.value, 7);
    }
    /* a modifier applies to the report stages after it, each its own */
    ok("in.png --hist a.png --hist-log --plot-size 640x400 --hist b.png --colsum c.png", &p);
    assert_int_equal(p.stages[0].mods.log, 0);
    assert_int_equal(p.stages[1].mods.log, 1);
    assert_int_equal(p.stages[1].mods.plot_w, 640);
    assert_int_equal(p.stages[2].mods.log, 0); /* --hist-log is a histogram's */
    assert_int_equal(p.stages[2].mods.plot_h, 400);
    usage_error("in.png --hist a.png --hist-log", "no stage that it applies to follows");
    usage_error("in.png --colsum c.csv --hist-log --colsum d.csv", "--hist-log");
    usage_error("in.png --plot-size 10x10 --hist a.png", "--plot-size");
    /* --hist-channels is gone; it says what replaced it */
    usage_error("in.png --hist-channels rgb --hist a.csv", "put --gray before --hist");
    usage_error("in.png --hist-channels luma --hist a.csv", "every channel");
}

static void test_variants(void **state)
{
    gf_plan p;
    (void)state;
    /* --shared picks the shared kernel where a stage has one; others keep
     * their default */
    ok("x.png --flip --shared -o y.png", &p);
    assert_int_equal(p.stages[0].variant, -1);
    ok("x.png --mean 3 --flip --shared -o y.png", &p);
    assert_int_equal(p.stages[0].variant, 1);
    assert_int_equal(p.stages[1].variant, -1);
    ok("x.png --mean 3 --colsum c.csv --variant word", &p);
    assert_int_equal(p.stages[0].variant, -1);
    assert_int_equal(p.stages[1].variant, 1);
    usage_error("x.png --mean 3 --variant fast -o y.png", "no stage has a kernel variant 'fast'");
}

static void test_outputs(void **state)
{
    gf_plan p;
    (void)state;
    ok("x.png -o - --mean 3", &p);
    assert_int_equal(p.format, GF_FMT_PNG); /* stdout is PNG unless told */
    ok("x.png -o - --format pgm --mean 3", &p);
    assert_int_equal(p.format, GF_FMT_PGM);
    ok("x.png -o y.JPEG", &p);
    assert_int_equal(p.format, GF_FMT_JPEG);
    ok("x.png -o y --format jpeg", &p);
    assert_int_equal(p.format, GF_FMT_JPEG);
    ok("x.png -o y.WebP", &p);
    assert_int_equal(p.format, GF_FMT_WEBP);
    assert_int_equal(p.webp_lossless, 0);
    assert_int_equal(p.jpeg_quality, GF_DEFAULT_JPEG_QUALITY);
    ok("x.png -o - --format webp --lossless --quality 40", &p);
    assert_int_equal(p.format, GF_FMT_WEBP);
    assert_int_equal(p.webp_lossless, 1);
    assert_int_equal(p.jpeg_quality, 40);
    assert_int_equal(p.strip, 0); /* metadata kept unless told */
    ok("x.jpg -o y.png --strip", &p);
    assert_int_equal(p.strip, 1);
    usage_error("x.png -o y.webp --format png", "contradicts");
    usage_error("x.png -o y --format gif", "is not png, pgm, ppm, pam, jpeg, tiff or webp");
    ok("a.png b.png -o out", &p);
    assert_int_equal(p.output_dir, 1);
    assert_int_equal(p.batch, 1);
    ok("a.png b.png -o out/{stem}.pgm", &p);
    usage_error("x.png -o y.gif", "gif images are not written");
    ok("x.png -o y.TIF", &p);
    assert_int_equal(p.format, GF_FMT_TIFF);
    assert_int_equal(p.tiff_compress, GF_TIFF_DEFLATE);
    ok("x.png -o y --format tiff --compress packbits", &p);
    assert_int_equal(p.format, GF_FMT_TIFF);
    assert_int_equal(p.tiff_compress, GF_TIFF_PACKBITS);
    ok("x.png -o y.tiff --compress none", &p);
    assert_int_equal(p.tiff_compress, GF_TIFF_NONE);
    ok("x.png -o y.tiff --compress lzw", &p);
    assert_int_equal(p.tiff_compress, GF_TIFF_LZW);
    usage_error("x.png -o y.tif --compress zip", "--compress: 'zip' is not one of none, lzw");
    usage_error("x.png -o y.tif --format png", "contradicts");
    usage_error("x.png -o y.jpg --format png", "contradicts");
    usage_error("x.png -o y", "cannot tell the output format");
    usage_error("x.png -o ''", "empty");
    usage_error("x.png", "no output");
    usage_error("a.png b.png -o -", "batch");
    usage_error("x.png --hist a.csv --colsum a.csv", "more than one output");
    usage_error("x.png --hist - -o - --format pgm", "stdout");
    usage_error("x.png --hist h.txt", ".csv, .json, .png or .svg");
    usage_error("x.png -o {bogus}.png", "unknown template field");
    ok("x.png --stats", &p);
    assert_int_equal(p.nstages, 1); /* --stats adds the histogram it prints */
    assert_string_equal(p.stages[0].ops->name, "hist");
}

static void test_numbers(void **state)
{
    gf_plan p;
    (void)state;
    ok("a.png b.png --shard 2/3 --hist h/{stem}.csv", &p);
    assert_int_equal(p.shard_k, 2);
    assert_int_equal(p.shard_n, 3);
    usage_error("a.png --shard 4294967297/4294967298 --stats", "--shard");
    usage_error("a.png --shard 0/2 --stats", "--shard");
    usage_error("a.png --shard 3/2 --stats", "--shard");
    usage_error("a.png --shard 1/ --stats", "--shard");
    usage_error("a.png --jobs 0 --stats", "--jobs");
    usage_error("a.png --jobs 4294967297 --stats", "--jobs");
    usage_error("a.png --png-level 13 -o b.png", "--png-level");
    usage_error("a.png --quality 0 -o b.jpg", "--quality");
    ok("a.tif --page 2 -o b.png", &p);
    assert_int_equal(p.limits.page, 2);
    ok("a.tif -o b.png", &p);
    assert_int_equal(p.limits.page, 0);
    usage_error("a.tif --page -1 -o b.png", "--page");
    usage_error("a.tif --page 65536 -o b.png", "--page");
    usage_error("a.png --device -1 --stats", "--device");
    usage_error("a.png --max-pixels 0 --stats", "--max-pixels");
    usage_error("a.png --threshold 65536 -o b.png", "--threshold");
    usage_error("a.png --mean 4 -o b.png", "--mean");
    usage_error("a.png --rotate 45 -o b.png", "--rotate");
    ok("a.png --max-file-size 18446744073709551615 --stats", &p);
    assert_true(p.limits.max_file_bytes == UINT64_MAX);
}

/* gf_parse_ints: the numbers joined by a separator, each in range, nothing
 * more or less; and gf_median, odd and even counts. */
static void test_number_lists(void **state)
{
    int v[3] = {-1, -1, -1};
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};
    (void)state;
    assert_int_equal(gf_parse_ints("--x", "WxH", "640x480", 'x', 2, 1, 1000, v), 0);
    assert_int_equal(v[0], 640);
    assert_int_equal(v[1], 480);
    assert_int_equal(v[2], -1);
    assert_int_equal(gf_parse_ints("--x", "MxNxK", "1x2x3", 'x', 3, 1, 3, v), 0);
    assert_int_equal(v[0] * 100 + v[1] * 10 + v[2], 123);
    assert_int_equal(gf_parse_ints("--x", "WxH", "1x2x3", 'x', 2, 1, 9, v), GF_EUSAGE);
    assert_string_equal(gf_errmsg(), "--x: '1x2x3' is not WxH (1..9 each)");
    assert_int_equal(gf_parse_ints("--x", "WxH", "640x", 'x', 2, 1, 1000, v), GF_EUSAGE);
    assert_int_equal(gf_parse_ints("--x", "WxH", "x480", 'x', 2, 1, 1000, v), GF_EUSAGE);
    assert_int_equal(gf_parse_ints("--x", "WxH", "640", 'x', 2, 1, 1000, v), GF_EUSAGE);
    assert_int_equal(gf_parse_ints("--x", "WxH", "1001x5", 'x', 2, 1, 1000, v), GF_EUSAGE);
    assert_int_equal(gf_parse_ints("--x", "K/N", "2/3", '/', 2, 1, 3, v), 0);
    assert_int_equal(v[0] * 10 + v[1], 23);
    assert_true(gf_median(odd, 3) == 3.0);
    assert_true(gf_median(even, 4) == 2.5);
}

static void test_inputs(void **state)
{
    gf_plan p;
    (void)state;
    usage_error("--stats", "no input");
    usage_error("a.png - --stats", "stdin");
    usage_error("a.png --null --stats", "--null needs --files-from");
    ok("--files-from list.txt -0 --stats", &p);
    assert_int_equal(p.files_null, 1);
    assert_int_equal(p.batch, 1);
    usage_error("a.png --bogus", "unknown option --bogus");
    usage_error("a.png -o", "needs an argument");
}

/* An option whose argument name is in brackets takes the next word when
 * it starts with a digit, '.' or ',', or with '-' and a digit; the operands
 * around it stay operands. */
static void test_optional_values(void **state)
{
    static const struct {
        const char *line;
        double low, high; /* of the first stage, an autocontrast */
        int nstages, ninputs;
    } cases[] = {
        {"in.png -o o.png --autocontrast", 0, 0, 1, 1},
        {"in.png -o o.png --autocontrast 2", 2, 2, 1, 1},
        {"in.png --autocontrast 2 -o o.png", 2, 2, 1, 1},
        {"--autocontrast 2 in.png -o o.png", 2, 2, 1, 1},
        {"--autocontrast in.png -o o.png", 0, 0, 1, 1},
        {"in.png --autocontrast -o o.png", 0, 0, 1, 1},
        {"in.png -o o.png --autocontrast --mean 3", 0, 0, 2, 1},
        {"in.png -o o.png --autocontrast 1.5,3 --mean 3", 1.5, 3, 2, 1},
        {"in.png -o o.png --autocontrast .5", 0.5, 0.5, 1, 1},
        {"in.png -o o.png --autocontrast=4", 4, 4, 1, 1},
        {"a.png --autocontrast 3 b.png -o d/", 3, 3, 1, 2},
        {"a.png --autocontrast b.png -o d/", 0, 0, 1, 2},
    };
    gf_plan p;
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ok(cases[i].line, &p);
        if (p.nstages != cases[i].nstages || p.ninputs != cases[i].ninputs)
            fail_msg("'%s': %d stages, %d inputs", cases[i].line, p.nstages, p.ninputs);
        assert_string_equal(p.stages[0].ops->name, "autocontrast");
        assert_true(GF_CPARAMS(&p.stages[0], gf_autocontrast_params)->low == cases[i].low);
        assert_true(GF_CPARAMS(&p.stages[0], gf_autocontrast_params)->high == cases[i].high);
    }
    ok("a.png --autocontrast b.png -o d/", &p);
    assert_string_equal(p.inputs[0], "a.png");
    assert_string_equal(p.inputs[1], "b.png");
    /* a word that looks like a value is one, good or bad */
    usage_error("in.png -o o.png --autocontrast -1", "'-1'");
    usage_error("in.png -o o.png --autocontrast ,5", "',5'");
    usage_error("in.png -o o.png --autocontrast 2.png", "'2.png'");
    usage_error("in.png -o o.png --autocontrast=", "--autocontrast");
    /* a required value takes any next word, as before */
    usage_error("in.png -o o.png --gamma -1", "'-1'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stages_in_order), cmocka_unit_test(test_settings_and_modifiers),
        cmocka_unit_test(test_variants),        cmocka_unit_test(test_outputs),
        cmocka_unit_test(test_numbers),         cmocka_unit_test(test_number_lists),
        cmocka_unit_test(test_inputs),          cmocka_unit_test(test_optional_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
