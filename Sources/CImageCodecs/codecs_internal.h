/* Shared by the codec files; not part of the module's public header. */
#ifndef CIMAGECODECS_INTERNAL_H
#define CIMAGECODECS_INTERNAL_H

#include <stdarg.h>
#include "cimagecodecs.h"

/* Libraries that store 16-bit samples big-endian (PNG) must swap on little-endian hosts only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CIC_HOST_LITTLE_ENDIAN 1
#else
#define CIC_HOST_LITTLE_ENDIAN 0
#endif

void cic_succeed(cic_status *status);

/* Records a failure (code + printf-style one-line message) and returns the code. */
int32_t cic_fail(cic_status *status, int32_t code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

int32_t cic_vfail(cic_status *status, int32_t code, const char *format, va_list arguments);

#endif
