#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devices_internal.h"

int32_t cdv_slot_store(cdv_slot *slot, const void *data, size_t stride, int32_t width, int32_t height,
                       int32_t bytes_per_pixel, uint64_t timestamp) {
    size_t row = (size_t)width * bytes_per_pixel, size = row * height;
    if (size > slot->capacity) {
        unsigned char *grown = realloc(slot->data, size);
        if (!grown) return -1;
        slot->data = grown;
        slot->capacity = size;
    }
    for (int32_t y = 0; y < height; y++) {
        memcpy(slot->data + row * y, (const unsigned char *)data + stride * y, row);
    }
    slot->size = size;
    slot->width = width;
    slot->height = height;
    slot->bytes_per_pixel = bytes_per_pixel;
    slot->timestamp = timestamp;
    slot->fresh = 1;
    return 0;
}

int32_t cdv_slot_take(cdv_slot *slot, cdv_frame *frame) {
    if (!slot->fresh) return 0;
    slot->fresh = 0;
    frame->width = slot->width;
    frame->height = slot->height;
    frame->bytes_per_pixel = slot->bytes_per_pixel;
    frame->timestamp = slot->timestamp;
    frame->data = slot->data;
    frame->size = slot->size;
    return 1;
}

void cdv_slot_free(cdv_slot *slot) {
    free(slot->data);
    memset(slot, 0, sizeof *slot);
}

void *cdv_library_load(const char *const *sonames, const char *package, const char *const *names, size_t count,
                       void **functions, cdv_status *status) {
    void *library = NULL;
    if (cs_load_library(sonames, package, names, count, functions, &library, status) != CS_OK) {
        status->code = CDV_UNAVAILABLE;
        return NULL;
    }
    return library;
}
