#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devices_internal.h"

void cdv_succeed(cdv_status *status) {
    status->code = CDV_OK;
    status->message[0] = 0;
}

int32_t cdv_fail(cdv_status *status, int32_t code, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    status->code = code;
    vsnprintf(status->message, sizeof status->message, format, arguments);
    va_end(arguments);
    /* Library messages sometimes span lines; the caller's error is one line. */
    for (char *c = status->message; *c; c++) {
        if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    }
    size_t length = strlen(status->message);
    while (length > 0 && (status->message[length - 1] == ' ' || status->message[length - 1] == '.')) {
        status->message[--length] = 0;
    }
    return code;
}

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

void *cdv_library_open(const char *const *sonames, const char *package, cdv_status *status) {
    for (const char *const *name = sonames; *name; name++) {
        void *library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (library) return library;
    }
    cdv_fail(status, CDV_UNAVAILABLE, "%s is not installed (Debian package %s)", sonames[0], package);
    return NULL;
}

int32_t cdv_library_bind(void *library, const char *const *names, void **functions, int32_t count,
                         const char *what, cdv_status *status) {
    for (int32_t i = 0; i < count; i++) {
        functions[i] = dlsym(library, names[i]);
        if (!functions[i]) {
            return cdv_fail(status, CDV_UNAVAILABLE, "%s has no %s (an incompatible version?)", what, names[i]);
        }
    }
    return CDV_OK;
}
