/*
 * libtiff, opened with dlopen on the first TIFF rather than linked: it brings six libraries of its
 * own (webp, zstd, lzma, Lerc, jbig, deflate) that every cloudgen process would load at start,
 * for a format few inputs use (Docs/architecture.md, "Start-up").
 *
 * tiff_codec.c includes this header instead of <tiffio.h> and calls libtiff as usual: each function
 * it uses is a macro for a pointer in cic_tiff_functions (as OpenGL loaders do), typed from its
 * declaration in tiffio.h. A function missing here fails the link (nothing links libtiff): add it
 * to CIC_TIFF_FUNCTIONS and give it a macro below.
 */
#ifndef CIC_TIFF_LIBRARY_H
#define CIC_TIFF_LIBRARY_H

#include <tiffio.h>
#include "library_loader.h"

#define CIC_TIFF_FUNCTIONS(X) \
    X(TIFFClientOpenExt) X(TIFFClose) X(TIFFComputeStrip) X(TIFFComputeTile) X(TIFFGetField) \
    X(TIFFGetFieldDefaulted) X(TIFFIsTiled) X(TIFFNumberOfStrips) X(TIFFNumberOfTiles) \
    X(TIFFOpenOptionsAlloc) X(TIFFOpenOptionsFree) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetWarningHandlerExtR) X(TIFFReadEncodedStrip) X(TIFFReadEncodedTile) \
    X(TIFFSetErrorHandler) X(TIFFSetWarningHandler) X(TIFFTileSize)

typedef struct cic_tiff_functions {
    CIC_TIFF_FUNCTIONS(CIC_FUNCTION_FIELD)
} cic_tiff_functions;

extern cic_tiff_functions cic_tiff;

/* Loads libtiff once per process and fills cic_tiff: CIC_OK, or CIC_IO_ERROR naming the library,
   on this call and every later one. Call it before any libtiff function. */
int32_t cic_tiff_load(cic_status *status);

#define TIFFClientOpenExt cic_tiff.TIFFClientOpenExt
#define TIFFClose cic_tiff.TIFFClose
#define TIFFComputeStrip cic_tiff.TIFFComputeStrip
#define TIFFComputeTile cic_tiff.TIFFComputeTile
#define TIFFGetField cic_tiff.TIFFGetField
#define TIFFGetFieldDefaulted cic_tiff.TIFFGetFieldDefaulted
#define TIFFIsTiled cic_tiff.TIFFIsTiled
#define TIFFNumberOfStrips cic_tiff.TIFFNumberOfStrips
#define TIFFNumberOfTiles cic_tiff.TIFFNumberOfTiles
#define TIFFOpenOptionsAlloc cic_tiff.TIFFOpenOptionsAlloc
#define TIFFOpenOptionsFree cic_tiff.TIFFOpenOptionsFree
#define TIFFOpenOptionsSetErrorHandlerExtR cic_tiff.TIFFOpenOptionsSetErrorHandlerExtR
#define TIFFOpenOptionsSetMaxSingleMemAlloc cic_tiff.TIFFOpenOptionsSetMaxSingleMemAlloc
#define TIFFOpenOptionsSetWarningHandlerExtR cic_tiff.TIFFOpenOptionsSetWarningHandlerExtR
#define TIFFReadEncodedStrip cic_tiff.TIFFReadEncodedStrip
#define TIFFReadEncodedTile cic_tiff.TIFFReadEncodedTile
#define TIFFSetErrorHandler cic_tiff.TIFFSetErrorHandler
#define TIFFSetWarningHandler cic_tiff.TIFFSetWarningHandler
#define TIFFTileSize cic_tiff.TIFFTileSize

#endif
