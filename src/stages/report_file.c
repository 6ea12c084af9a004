/* report_file.c - report file types and in-memory report files. */
#include "report_file.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../gf.h"
#include "../image.h"

gf_report_type gf_report_type_of(const char *path)
{
    const char *dot = strrchr(path, '.');

    if (!strcmp(path, "-"))
        return GF_REPORT_STDOUT;
    if (!dot || strchr(dot, '/'))
        return GF_REPORT_NONE;
    if (!strcasecmp(dot, ".csv"))
        return GF_REPORT_CSV;
    if (!strcasecmp(dot, ".json"))
        return GF_REPORT_JSON;
    if (!strcasecmp(dot, ".png"))
        return GF_REPORT_PNG;
    return GF_REPORT_NONE;
}

int gf_memfile_open(gf_memfile *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f ? 0 : gf_err(GF_EINTERNAL, NULL, "out of memory");
}

int gf_memfile_commit(gf_memfile *m, const char *path)
{
    int rc = fclose(m->f) ? gf_err(GF_EINTERNAL, path, "out of memory")
                          : gf_write(path, (const unsigned char *)m->buf, m->len);
    free(m->buf);
    m->buf = NULL;
    return rc;
}
