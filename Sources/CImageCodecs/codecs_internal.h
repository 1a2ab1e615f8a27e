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

/* cstatus.h's helpers under the names the codec files use. */
#define cic_succeed cs_succeed
#define cic_fail cs_fail
#define cic_vfail cs_vfail

#endif
