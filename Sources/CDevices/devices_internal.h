/* What the CDevices files share: status helpers, the per-stream frame slot, library loading. */
#ifndef CDEVICES_INTERNAL_H
#define CDEVICES_INTERNAL_H

#include <stdarg.h>
#include "cdevices.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cstatus.h's helpers under the names the device files use. */
#define cdv_succeed cs_succeed
#define cdv_fail cs_fail

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

/* Opens the first of `sonames` that loads and binds `names` into `functions` (cs_load_library);
   a missing library or function is CDV_UNAVAILABLE. Returns the handle, or NULL. */
void *cdv_library_load(const char *const *sonames, const char *package, const char *const *names, size_t count,
                       void **functions, cdv_status *status);

#ifdef __cplusplus
}
#endif

#endif
