/*
 * libzstd, opened with dlopen on the first depth frame coded with zstd (library_loader.h says why):
 * only live streams' pushed frames use it. zstd_depth.c includes this header instead of <zstd.h>
 * alone and calls the library as usual.
 */
#ifndef CIC_ZSTD_LIBRARY_H
#define CIC_ZSTD_LIBRARY_H

#include <zstd.h>
#include "library_loader.h"

#define CIC_ZSTD_FUNCTIONS(X) \
    X(ZSTD_compress) X(ZSTD_compressBound) X(ZSTD_decompress) X(ZSTD_getFrameContentSize) X(ZSTD_isError) \
    X(ZSTD_getErrorName) X(ZSTD_findFrameCompressedSize)

typedef struct cic_zstd_functions {
    CIC_ZSTD_FUNCTIONS(CIC_FUNCTION_FIELD)
} cic_zstd_functions;

extern cic_zstd_functions cic_zstd;

/* Loads libzstd once per process and fills cic_zstd: CIC_OK, or CIC_IO_ERROR naming the library,
   on this call and every later one. Call it before any libzstd function. */
int32_t cic_zstd_load(cic_status *status);

#define ZSTD_compress cic_zstd.ZSTD_compress
#define ZSTD_compressBound cic_zstd.ZSTD_compressBound
#define ZSTD_decompress cic_zstd.ZSTD_decompress
#define ZSTD_getFrameContentSize cic_zstd.ZSTD_getFrameContentSize
#define ZSTD_isError cic_zstd.ZSTD_isError
#define ZSTD_getErrorName cic_zstd.ZSTD_getErrorName
#define ZSTD_findFrameCompressedSize cic_zstd.ZSTD_findFrameCompressedSize

#endif
