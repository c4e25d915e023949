/* Small shared helpers: fatal errors, checked allocation, a growable string buffer,
 * growable arrays and whole-file reading. Out of memory is fatal by design: nothing can recover
 * from it. */
#ifndef BASE_UTIL_H
#define BASE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define NORETURN __attribute__((noreturn))
#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define NORETURN
#define PRINTF_LIKE(a, b)
#endif

NORETURN void die(const char *fmt, ...) PRINTF_LIKE(1, 2);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Frees p with free_fn (free, x_free) and forgets it, so that nothing dangles. */
#define FREE_AND_NULL(free_fn, p) ((free_fn)(p), (p) = NULL)
/* p (of old_n elements of size bytes) grown to new_n, the new elements zeroed. */
void *xrecalloc(void *p, size_t old_n, size_t new_n, size_t size);

/* Grows *arr (of element size elem) so that it holds at least need elements. */
void grow_array(void **arr, size_t *cap, size_t need, size_t elem);
/* (The check inline: arrays grown by the element, the grounder's literals by the ten
 * million, pay a call only when they grow.) */
#define GROW(arr, cap, need)                                                                       \
    ((size_t)(need) > (cap) ? grow_array((void **)&(arr), &(cap), (need), sizeof(*(arr))) : (void)0)
/* The same, the new elements zeroed: arrays indexed by an id, read where never written. */
void grow_array_zeroed(void **arr, size_t *cap, size_t need, size_t elem);
#define GROW_ZEROED(arr, cap, need)                                                                \
    ((size_t)(need) > (cap) ? grow_array_zeroed((void **)&(arr), &(cap), (need), sizeof(*(arr)))   \
                            : (void)0)

typedef struct {
    char *data;
    size_t len, cap;
} strbuf_t;

void sb_init(strbuf_t *sb);
void sb_fini(strbuf_t *sb);
void sb_clear(strbuf_t *sb);
void sb_putc(strbuf_t *sb, char c);
void sb_puts(strbuf_t *sb, const char *s);
void sb_putn(strbuf_t *sb, const char *s, size_t n);
void sb_printf(strbuf_t *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vprintf(strbuf_t *sb, const char *fmt, va_list ap) PRINTF_LIKE(2, 0);
/* Returns the NUL-terminated contents (valid until the next change). */
const char *sb_str(strbuf_t *sb);

/* qsort comparators: unsigned integers (term ids among them), ascending. */
int cmp_u32(const void *a, const void *b);
int cmp_u64(const void *a, const void *b);

/* Reads a whole file; returns NULL (errno set) when it cannot. */
char *read_file(const char *path, size_t *len);
/* The same from an open stream (stdin, say), to its end. */
char *read_stream(FILE *f, size_t *len);

#endif
