/*
 * How every C part of cloudgen reports (CImageCodecs, CDevices, and the PCL shim, which includes
 * this header from its own build): a code and a one-line message without the file's name, which
 * the Swift caller knows better and adds (SafeIO's `CStatus+CloudError.swift` is the one mapping).
 * And how each of them opens a library on first use rather than linking it (Docs/architecture.md,
 * "Start-up"): cs_load_library, behind a struct of typed function pointers per library.
 */
#ifndef CSTATUS_H
#define CSTATUS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CS_OK = 0,
    /* The input is wrong: corrupt, truncated, or of a kind that is refused (exit status 2). */
    CS_BAD_INPUT = 1,
    /* The system, a library or a device failed while doing something valid, or a library opened
       on first use is missing (exit status 3). */
    CS_IO_ERROR = 2
    /* Codes from 16 up are a target's own finer kinds of failure (CDevices: no device, permission,
       a recording's end); the Swift mapping takes them as CS_IO_ERROR. */
};

#define CS_MESSAGE_CAPACITY 512

typedef struct cs_status {
    int32_t code;
    char message[CS_MESSAGE_CAPACITY];
} cs_status;

void cs_succeed(cs_status *status);

/* Records a failure (code and a printf-style message, made one line: line breaks become spaces,
   trailing spaces and full stops go) and returns the code. */
int32_t cs_fail(cs_status *status, int32_t code, const char *format, ...) __attribute__((format(printf, 3, 4)));
int32_t cs_vfail(cs_status *status, int32_t code, const char *format, va_list arguments);

/* Opens the first of `sonames` (NULL-terminated) that loads and fills `functions` with the `count`
   symbols `names` lists, in order: CS_OK, or CS_IO_ERROR naming the library and the Debian
   `package` that installs it, or the first missing function. On success *library (when not NULL)
   is the handle; on failure the library is closed again and `functions` must not be used. */
int32_t cs_load_library(const char *const *sonames, const char *package, const char *const *names, size_t count,
                        void **functions, void **library, cs_status *status);

#ifdef __cplusplus
}
#endif

#endif
