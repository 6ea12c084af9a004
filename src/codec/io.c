/* io.c - reading inputs within their limit, and writing outputs so that no
 * partial file is ever left (codec.h, common.h). The bottom layer: what an
 * image's header says of its size comes in as a function (decode.c's
 * gf_input_need), not called up here. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#define READ_CHUNK (1u << 20) /* first buffer for an input of unknown size */
#define PROBE_FIRST (64u << 10) /* bytes read before an image's header is first looked at */

int gf_read_input(const char *path, const gf_limits *lim, gf_input_need_fn need_fn,
                  unsigned char **buf, size_t *len)
{
    const char *name = strcmp(path, "-") ? path : "(stdin)";
    /* the most ever held: the limit, one byte to see that it is passed, the NUL */
    const uint64_t most = lim->max_file_bytes + 2;
    uint64_t stop = lim->max_file_bytes + 1; /* read no further (an image's need, once known) */
    size_t probe = need_fn ? PROBE_FIRST : 0; /* where the header is looked at next; 0: done */
    int fd = STDIN_FILENO, own = 0, rc = 0;
    struct stat st;
    unsigned char *b = NULL;
    size_t n = 0, cap = READ_CHUNK;

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
        if (S_ISREG(st.st_mode))
            cap = (size_t)st.st_size + 2; /* +1 sees EOF without a realloc, +1 the NUL */
    }
    if (cap > most)
        cap = (size_t)most;
    for (;;) {
        if (!b || n + 1 >= cap) {
            size_t ncap = !b ? cap : cap * 2 > most ? (size_t)most : cap * 2;
            unsigned char *nb = realloc(b, ncap);
            if (!nb) {
                rc = gf_err(GF_EINTERNAL, name, "out of memory reading the file");
                goto out;
            }
            b = nb;
            cap = ncap;
        }
        size_t want = cap - 1 - n;
        if (probe && want > probe - n)
            want = probe - n; /* the header is looked at before reading on */
        if (want > stop - n)
            want = (size_t)(stop - n);
        ssize_t r = read(fd, b + n, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = gf_err(GF_ENOINPUT, name, "read error: %s", strerror(errno));
            goto out;
        }
        n += (size_t)r;
        if (probe && (r == 0 || n >= probe)) {
            uint64_t need;
            rc = need_fn(name, b, n, lim, &need);
            if (rc < 0)
                goto out;
            if (rc == 1 && r != 0 && probe < GF_INPUT_PROBE) {
                probe *= 2; /* the header goes on: read more of it */
            } else {
                if (rc == 1) /* not understood in GF_INPUT_PROBE bytes: let the decoder say */
                    need = n;
                if (need < stop)
                    stop = need;
                probe = 0;
            }
            rc = 0;
        }
        if (r == 0 || n >= stop)
            break;
    }
    if (n > lim->max_file_bytes) {
        rc = gf_err(GF_EDATA, name, "input exceeds --max-file-size %llu bytes",
                    (unsigned long long)lim->max_file_bytes);
        goto out;
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

int gf_read_all(const char *path, const gf_limits *lim, unsigned char **buf, size_t *len)
{
    return gf_read_input(path, lim, NULL, buf, len);
}

/* Temporary output files, for gf_tmp_cleanup. A slot is claimed atomically
 * (state FREE -> CLAIMED), its name written, then marked PENDING before the
 * file is created: from then on a signal handler removes it. Names hold the
 * process id, so a name under PENDING is never another process's file. */
#define TMP_SLOTS 1100 /* more than the most workers (--jobs 1024) */
enum { FREE = 0, CLAIMED, PENDING };
static char tmp_paths[TMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t tmp_state[TMP_SLOTS];
static unsigned long tmp_counter;

static int tmp_claim(void)
{
    for (int i = 0; i < TMP_SLOTS; i++) {
        sig_atomic_t expect = FREE;
        if (__atomic_compare_exchange_n(&tmp_state[i], &expect, CLAIMED, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return i;
    }
    return -1;
}

/* Slot states are read and written atomically: threads claim slots while a
 * signal handler may look at any of them. */
static void set_state(int slot, sig_atomic_t state)
{
    __atomic_store_n(&tmp_state[slot], state, __ATOMIC_SEQ_CST);
}

void gf_tmp_cleanup(void)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (__atomic_load_n(&tmp_state[i], __ATOMIC_SEQ_CST) == PENDING)
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

/* Writes to an existing device or FIFO in place. */
static int write_in_place(const char *path, const unsigned char *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);

    if (fd < 0)
        return gf_err(GF_ECREATE, path, "cannot open: %s", strerror(errno));
    if (write_all(fd, buf, len)) {
        int e = errno;
        close(fd);
        return gf_err(GF_EIO, path, "write error: %s", strerror(e));
    }
    if (close(fd))
        return gf_err(GF_EIO, path, "write error: %s", strerror(errno));
    return 0;
}

/* The file a symbolic link at path points to, in out (n bytes): its target,
 * relative to the link's directory when not absolute. */
static int link_target(const char *path, char *out, size_t n)
{
    char target[PATH_MAX];
    const char *slash = strrchr(path, '/');
    ssize_t r = readlink(path, target, sizeof target - 1);

    if (r < 0)
        return gf_err(GF_ECREATE, path, "cannot read the link: %s", strerror(errno));
    target[r] = 0;
    if (target[0] == '/' || !slash) {
        if ((size_t)snprintf(out, n, "%s", target) >= n)
            return gf_err(GF_ECREATE, path, "path too long");
    } else if ((size_t)snprintf(out, n, "%.*s%s", (int)(slash - path + 1), path, target) >= n) {
        return gf_err(GF_ECREATE, path, "path too long");
    }
    return 0;
}

int gf_write(const char *path, const unsigned char *buf, size_t len)
{
    static pthread_mutex_t stdout_lock = PTHREAD_MUTEX_INITIALIZER;
    char resolved[PATH_MAX];
    const char *slash, *base, *target = path;
    struct stat st;
    int rc = 0, slot = -1, fd = -1;

    if (!strcmp(path, "-")) { /* whole outputs, even from several batch workers */
        pthread_mutex_lock(&stdout_lock);
        fflush(stdout);
        if (write_all(STDOUT_FILENO, buf, len))
            rc = gf_err(GF_EIO, "(stdout)", "write error: %s", strerror(errno));
        pthread_mutex_unlock(&stdout_lock);
        return rc;
    }
    /* a symbolic link is written through to its target (links to links too) */
    for (int hops = 0; lstat(target, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        char next[PATH_MAX];
        if (hops == 40)
            return gf_err(GF_ECREATE, path, "cannot create: %s", strerror(ELOOP));
        if ((rc = link_target(target, next, sizeof next)))
            return rc;
        memcpy(resolved, next, sizeof resolved);
        target = resolved;
    }
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return gf_err(GF_ECREATE, path, "cannot create: %s", strerror(EISDIR));
        if (!S_ISREG(st.st_mode))
            return write_in_place(target, buf, len);
    }
    slot = tmp_claim();
    if (slot < 0)
        return gf_err(GF_EINTERNAL, path, "too many outputs in flight");
    slash = strrchr(target, '/');
    base = slash ? slash + 1 : target;
    for (int attempt = 0; fd < 0; attempt++) {
        unsigned long k = __atomic_fetch_add(&tmp_counter, 1, __ATOMIC_RELAXED);
        set_state(slot, CLAIMED); /* no signal reads the name while it changes */
        if ((size_t)snprintf(tmp_paths[slot], PATH_MAX, "%.*s.%s.gpufilt-%ld-%lu",
                             (int)(slash ? slash - target + 1 : 0), target, base, (long)getpid(),
                             k) >= PATH_MAX) {
            rc = gf_err(GF_ECREATE, path, "path too long");
            goto out;
        }
        set_state(slot, PENDING); /* from here on a signal removes it */
        fd = open(tmp_paths[slot], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt == 100)) {
            set_state(slot, CLAIMED);
            rc = gf_err(GF_ECREATE, path, "cannot create: %s", strerror(errno));
            goto out;
        }
    }
    if (write_all(fd, buf, len)) {
        rc = gf_err(GF_EIO, path, "write error: %s", strerror(errno));
        goto out;
    }
    if (close(fd)) {
        fd = -1;
        rc = gf_err(GF_EIO, path, "write error: %s", strerror(errno));
        goto out;
    }
    fd = -1;
    if (rename(tmp_paths[slot], target)) {
        rc = gf_err(GF_ECREATE, path, "cannot create: %s", strerror(errno));
        goto out;
    }
    set_state(slot, CLAIMED); /* renamed: nothing to remove */
out:
    if (fd >= 0)
        close(fd);
    if (slot >= 0) {
        if (__atomic_load_n(&tmp_state[slot], __ATOMIC_SEQ_CST) == PENDING)
            unlink(tmp_paths[slot]);
        set_state(slot, FREE);
    }
    return rc;
}
