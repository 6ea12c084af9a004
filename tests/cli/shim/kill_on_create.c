/* kill_on_create.c - an LD_PRELOAD shim for the CLI tests: the moment a
 * temporary output file (a name containing ".gpufilt-") has been created,
 * the process gets SIGTERM. A writer that registers its temporary file only
 * after creating it leaves the file behind; one that registers it first
 * does not. Build: cc -shared -fPIC -o kill_on_create.so kill_on_create.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void hit(const char *path, int fd)
{
    if (fd >= 0 && path && strstr(path, ".gpufilt-"))
        raise(SIGTERM);
}

int open(const char *path, int flags, ...)
{
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    mode_t mode = 0;
    int fd;

    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    fd = real(path, flags, mode);
    if (flags & O_CREAT)
        hit(path, fd);
    return fd;
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int mkostemp(char *tmpl, int flags)
{
    int (*real)(char *, int) = (int (*)(char *, int))dlsym(RTLD_NEXT, "mkostemp");
    int fd = real(tmpl, flags);
    hit(tmpl, fd);
    return fd;
}
