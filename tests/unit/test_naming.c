/* test_naming.c - batch output names: templates, -o DIR/, collisions and
 * directories. */
#include "common.h"

#include <sys/stat.h>

#include "../../src/batch/naming.h"
#include "../../src/codec/codec.h"
#include "../../src/report/files.h"

static void expand(const char *tmpl, const char *path, int index, const char *want)
{
    char out[256];
    int rc = gf_expand_template(tmpl, path, index, out, sizeof out);
    if (rc)
        fail_msg("%s with %s: %s", tmpl, path, gf_errmsg());
    assert_string_equal(out, want);
}

static void test_templates(void **state)
{
    (void)state;
    expand("{stem}", "a/b/photo.jpg", 1, "photo");
    expand("{name}", "a/b/photo.jpg", 1, "photo.jpg");
    expand("{ext}", "a/b/photo.jpg", 1, "jpg");
    expand("{dir}", "a/b/photo.jpg", 1, "a/b");
    expand("{dir}", "photo.jpg", 1, ".");
    expand("{dir}", "/photo.jpg", 1, "/");
    expand("{index}-{stem}.png", "x.tar.gz", 42, "42-x.tar.png");
    expand("out/{stem}{ext}", ".hidden", 1, "out/.hidden");
    expand("plain.png", "x.jpg", 3, "plain.png");
}

/* gf_path_ext: the one extension rule (formats, reports, templates). */
static void test_path_ext(void **state)
{
    static const struct {
        const char *path, *want; /* want NULL: no extension */
    } cases[] = {{"a.png", "png"},   {"x/y.tar.gz", "gz"}, {"a.", ""},
                 {".profile", NULL}, {"dir.d/name", NULL}, {"/a/.b.CSV", "CSV"},
                 {"", NULL},         {"dir/", NULL},       {"..", ""}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = gf_path_ext(cases[i].path);
        if (!cases[i].want)
            assert_null(got);
        else {
            assert_non_null(got);
            assert_string_equal(got, cases[i].want);
        }
    }
    assert_int_equal(gf_report_type_of("dir.d/h.Json"), GF_REPORT_JSON);
    assert_int_equal(gf_report_type_of("dir/.csv"), GF_REPORT_NONE);
    assert_int_equal(gf_format_from_name("out/x.JPEG"), GF_FMT_JPEG);
    assert_int_equal(gf_format_from_name("x."), GF_FMT_NONE);
}

static void test_template_errors(void **state)
{
    char out[16];
    (void)state;
    assert_int_equal(gf_expand_template("{bogus}.png", "x.jpg", 1, out, sizeof out), GF_EUSAGE);
    assert_non_null(strstr(gf_errmsg(), "unknown template field"));
    assert_int_equal(gf_expand_template("{name}{name}", "abcdefgh.jpg", 1, out, sizeof out),
                     GF_EUSAGE);
    assert_non_null(strstr(gf_errmsg(), "too long"));
    assert_int_equal(gf_expand_template("{ext}", "noext", 1, out, sizeof out), GF_EUSAGE);
    assert_non_null(strstr(gf_errmsg(), "empty"));
    assert_int_equal(gf_expand_template("", "x.jpg", 1, out, sizeof out), GF_EUSAGE);
    assert_int_equal(gf_expand_template("{stem}{", "x.jpg", 1, out, sizeof out), GF_EUSAGE);
}

static void test_output_names(void **state)
{
    char out[256];
    (void)state;
    assert_int_equal(gf_output_name("o/", 1, GF_FMT_PNG, "in/a.jpg", 1, out, sizeof out), 0);
    assert_string_equal(out, "o/a.png");
    assert_int_equal(gf_output_name("o", 1, GF_FMT_JPEG, "in/a.b.png", 1, out, sizeof out), 0);
    assert_string_equal(out, "o/a.b.jpg");
    assert_int_equal(gf_output_name("o/{index}.pgm", 0, GF_FMT_PGM, "a.png", 7, out, sizeof out),
                     0);
    assert_string_equal(out, "o/7.pgm");
}

static void test_collisions(void **state)
{
    char *names[] = {"o/a.png", "-", "o/b.png", NULL, "o/c.png", "o/b.png", "o/a.png"};
    char *none[] = {"x", "y", "-", "-", "z"};
    size_t a, b;
    (void)state;
    assert_int_equal(gf_find_collision(names, 7, &a, &b), 1);
    assert_int_equal(a, 2); /* o/b.png at 2 and 5 collide before o/a.png at 0 and 6 */
    assert_int_equal(b, 5);
    assert_int_equal(gf_find_collision(none, 5, &a, &b), 0);
    assert_int_equal(gf_find_collision(names, 0, &a, &b), 0);
}

static void test_make_dirs(void **state)
{
    char dir[] = "/tmp/gf-naming-XXXXXX", path[256], file[256];
    struct stat st;
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a/b/c/out.png", dir);
    assert_int_equal(gf_make_dirs(path, 0), 0);
    snprintf(path, sizeof path, "%s/a/b/c", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    snprintf(file, sizeof file, "%s/file", dir);
    assert_non_null(f = fopen(file, "w"));
    fclose(f);
    snprintf(path, sizeof path, "%s/file/sub/out.png", dir);
    assert_int_equal(gf_make_dirs(path, 0), GF_ECREATE);
    assert_non_null(strstr(gf_errmsg(), "Not a directory"));
    snprintf(path, sizeof path, "rm -rf %s", dir);
    assert_int_equal(system(path), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_templates),     cmocka_unit_test(test_path_ext),
        cmocka_unit_test(test_template_errors),
        cmocka_unit_test(test_output_names),  cmocka_unit_test(test_collisions),
        cmocka_unit_test(test_make_dirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
