/* naming.c - output names, collisions and directories (naming.h). */
#include "naming.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int gf_expand_template(const char *tmpl, const char *path, int index, char *out, size_t n)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    const char *ext = gf_path_ext(path);
    size_t stem_len = ext ? (size_t)(ext - 1 - name) : strlen(name);
    size_t len = 0;

    for (const char *p = tmpl; *p; p++) {
        char buf[32];
        const char *val = NULL;
        size_t vlen;
        if (*p != '{') {
            if (len + 1 >= n)
                return gf_err(GF_EUSAGE, tmpl, "output name too long");
            out[len++] = *p;
            continue;
        }
        const char *end = strchr(p, '}');
        size_t key = end ? (size_t)(end - p - 1) : 0;
        if (end && key == 4 && !strncmp(p + 1, "stem", 4)) {
            val = name;
            vlen = stem_len;
        } else if (end && key == 4 && !strncmp(p + 1, "name", 4)) {
            val = name;
            vlen = strlen(name);
        } else if (end && key == 3 && !strncmp(p + 1, "ext", 3)) {
            val = ext ? ext : "";
            vlen = strlen(val);
        } else if (end && key == 3 && !strncmp(p + 1, "dir", 3)) {
            val = slash ? path : ".";
            vlen = slash ? (size_t)(slash - path) : 1;
            if (slash == path)
                vlen = 1; /* "/" */
        } else if (end && key == 5 && !strncmp(p + 1, "index", 5)) {
            snprintf(buf, sizeof buf, "%d", index);
            val = buf;
            vlen = strlen(buf);
        } else {
            return gf_err(GF_EUSAGE, tmpl,
                          "unknown template field (use {stem}, {name}, {ext}, {dir}, {index})");
        }
        if (len + vlen >= n)
            return gf_err(GF_EUSAGE, tmpl, "output name too long");
        memcpy(out + len, val, vlen);
        len += vlen;
        p = end;
    }
    out[len] = 0;
    if (!len)
        return gf_err(GF_EUSAGE, tmpl[0] ? tmpl : NULL, "the output name is empty");
    return 0;
}

int gf_output_name(const char *output, int dir, gf_format format, const char *path, int index,
                   char *out, size_t n)
{
    char stem[PATH_MAX];
    size_t len = strlen(output);
    int rc;

    if (!dir)
        return gf_expand_template(output, path, index, out, n);
    if ((rc = gf_expand_template("{stem}", path, index, stem, sizeof stem)))
        return rc;
    if ((size_t)snprintf(out, n, "%s%s%s.%s", output, len && output[len - 1] == '/' ? "" : "/",
                         stem, gf_format_ext(format)) >= n)
        return gf_err(GF_EUSAGE, path, "output name too long");
    return 0;
}

typedef struct entry {
    const char *name;
    size_t pos;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

int gf_find_collision(char *const *names, size_t n, size_t *a, size_t *b)
{
    entry *e = malloc((n ? n : 1) * sizeof *e);
    size_t m = 0, best_a = 0, best_b = 0;
    int found = 0;

    if (!e)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], "-"))
            e[m++] = (entry){names[i], i};
    qsort(e, m, sizeof *e, cmp_entry);
    for (size_t i = 1; i < m; i++)
        if (!strcmp(e[i].name, e[i - 1].name) && (!found || e[i].pos < best_b)) {
            /* the collision whose second name comes first in the list */
            size_t first = i - 1;
            while (first > 0 && !strcmp(e[first - 1].name, e[i].name))
                first--;
            best_a = e[first].pos;
            best_b = e[i].pos;
            found = 1;
        }
    free(e);
    *a = best_a;
    *b = best_b;
    return found;
}

int gf_make_dirs(const char *path, int dir)
{
    char buf[PATH_MAX];
    struct stat st;

    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return gf_err(GF_ECREATE, path, "path too long");
    if (!dir) {
        char *slash = strrchr(buf, '/');
        if (!slash)
            return 0;
        *slash = 0;
    }
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (buf[0] && stat(buf, &st) != 0 && mkdir(buf, 0777) != 0 && errno != EEXIST)
                return gf_err(GF_ECREATE, path, "cannot create directory %s: %s", buf,
                              strerror(errno));
            if (buf[0] && stat(buf, &st) == 0 && !S_ISDIR(st.st_mode))
                return gf_err(GF_ECREATE, path, "cannot create: %s: %s", buf,
                              strerror(ENOTDIR));
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}
