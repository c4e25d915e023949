/* Shared helpers: see util.h. */
#define _POSIX_C_SOURCE 200809L
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("ggp: fatal: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(70);
}

void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory (%zu bytes)", n);
    return p;
}

void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) die("out of memory (%zu x %zu bytes)", n, size);
    return p;
}

void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) die("out of memory (%zu bytes)", n);
    return q;
}

char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void *xrecalloc(void *p, size_t old_n, size_t new_n, size_t size) {
    p = xrealloc(p, new_n * size);
    if (new_n > old_n) memset((char *)p + old_n * size, 0, (new_n - old_n) * size);
    return p;
}

/* The capacity that holds need, doubling from cap. */
static size_t grown(size_t cap, size_t need) {
    size_t c = cap ? cap : 8;
    while (c < need)
        c *= 2;
    return c;
}

void grow_array(void **arr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return;
    size_t c = grown(*cap, need);
    *arr = xrealloc(*arr, c * elem);
    *cap = c;
}

void grow_array_zeroed(void **arr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return;
    size_t c = grown(*cap, need);
    *arr = xrecalloc(*arr, *cap, c, elem);
    *cap = c;
}

void sb_init(strbuf_t *sb) {
    memset(sb, 0, sizeof *sb);
}
void sb_fini(strbuf_t *sb) {
    free(sb->data);
    memset(sb, 0, sizeof *sb);
}
void sb_clear(strbuf_t *sb) {
    sb->len = 0;
    if (sb->data) sb->data[0] = 0;
}

static void sb_reserve(strbuf_t *sb, size_t extra) {
    GROW(sb->data, sb->cap, sb->len + extra + 1);
}

void sb_putc(strbuf_t *sb, char c) {
    sb_reserve(sb, 1);
    sb->data[sb->len++] = c;
    sb->data[sb->len] = 0;
}

void sb_putn(strbuf_t *sb, const char *s, size_t n) {
    sb_reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = 0;
}

void sb_puts(strbuf_t *sb, const char *s) {
    sb_putn(sb, s, strlen(s));
}

void sb_vprintf(strbuf_t *sb, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n > 0) {
        sb_reserve(sb, (size_t)n);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
        sb->len += (size_t)n;
    }
    va_end(ap2);
}

void sb_printf(strbuf_t *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

const char *sb_str(strbuf_t *sb) {
    if (!sb->data) sb_reserve(sb, 0), sb->data[0] = 0;
    return sb->data;
}

char *read_stream(FILE *f, size_t *len) {
    strbuf_t sb;
    sb_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_putn(&sb, buf, n);
    if (ferror(f)) {
        sb_fini(&sb);
        errno = EIO;
        return NULL;
    }
    sb_str(&sb);
    if (len) *len = sb.len;
    return sb.data;
}

char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = read_stream(f, len);
    int err = errno;
    fclose(f);
    errno = err;
    return text;
}

int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
