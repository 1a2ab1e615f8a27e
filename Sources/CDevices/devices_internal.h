/* What the CDevices files share: status helpers, the per-stream frame slot, dlopen lookups. */
#ifndef CDEVICES_INTERNAL_H
#define CDEVICES_INTERNAL_H

#include <stdarg.h>
#include "cdevices.h"

#ifdef __cplusplus
extern "C" {
#endif

void cdv_succeed(cdv_status *status);
int32_t cdv_fail(cdv_status *status, int32_t code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* The newest frame of one stream, copied out of the library's buffer when it arrived. A newer
   frame replaces one not taken yet: capture wants the latest, not a backlog. */
typedef struct cdv_slot {
    unsigned char *data;
    size_t size;
    size_t capacity;
    int32_t width, height, bytes_per_pixel;
    uint64_t timestamp;
    int32_t fresh;
} cdv_slot;

/* Copies a frame whose rows lie `stride` bytes apart into the slot, rows packed; returns 0, or -1
   when memory ran out. */
int32_t cdv_slot_store(cdv_slot *slot, const void *data, size_t stride, int32_t width, int32_t height,
                       int32_t bytes_per_pixel, uint64_t timestamp);
int32_t cdv_slot_take(cdv_slot *slot, cdv_frame *frame);
void cdv_slot_free(cdv_slot *slot);

/* dlopen()s the first of `sonames` that loads; NULL with `status` naming `package` otherwise. */
void *cdv_library_open(const char *const *sonames, const char *package, cdv_status *status);

/* Resolves the symbols named in `names` into `functions` (same order); fails naming the first
   one missing. */
int32_t cdv_library_bind(void *library, const char *const *names, void **functions, int32_t count,
                         const char *what, cdv_status *status);

#ifdef __cplusplus
}
#endif

#endif
