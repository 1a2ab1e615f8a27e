/*
 * Libraries opened with dlopen on first use rather than linked (libtiff, libheif, expat, OpenEXR,
 * FFmpeg): each brings libraries of its own that every cloudgen process would otherwise load at
 * start, for inputs few commands read (Docs/architecture.md, "Start-up").
 *
 * Each such library has a header (tiff_library.h, heif_library.h, expat_library.h, exr_library.h,
 * video_library.h) that the code using it includes instead of the library's own: every function
 * used is a macro for a pointer in a struct of function pointers, typed from the library's
 * declaration (as OpenGL loaders do). A function missing from that struct fails the link, since
 * nothing links the library.
 */
#ifndef CIC_LIBRARY_LOADER_H
#define CIC_LIBRARY_LOADER_H

#include <stddef.h>
#include "codecs_internal.h"

/* The names as strings, before the macros of a library header replace them: #name of a macro
   argument is not expanded. */
#define CIC_FUNCTION_NAME(name) #name,
#define CIC_FUNCTION_FIELD(name) __typeof__(name) *name;

/* Defines the library's function struct `cic_PREFIX` and `cic_PREFIX_load(status)`, which loads
   it once per process and reports CIC_OK, or CIC_IO_ERROR naming the library, on that call and
   every later one. Needs <pthread.h>. */
#define CIC_DEFINE_LOADER(prefix, functions_macro, soname, package)                                       \
    cic_##prefix##_functions cic_##prefix;                                                               \
    static cic_status prefix##_status;                                                                   \
    static pthread_once_t prefix##_once = PTHREAD_ONCE_INIT;                                             \
    static const char *const prefix##_names[] = {functions_macro(CIC_FUNCTION_NAME)};                    \
    _Static_assert(sizeof(cic_##prefix##_functions) == sizeof prefix##_names / sizeof prefix##_names[0] * sizeof(void *), \
                   "cic_" #prefix "_functions must hold one pointer per name");                          \
    static void prefix##_load(void) {                                                                    \
        static const char *const sonames[] = {soname, NULL};                                             \
        cs_load_library(sonames, package, prefix##_names, sizeof prefix##_names / sizeof prefix##_names[0], \
                        (void **)&cic_##prefix, NULL, &prefix##_status);                                 \
    }                                                                                                    \
    int32_t cic_##prefix##_load(cic_status *status) {                                                    \
        pthread_once(&prefix##_once, prefix##_load);                                                     \
        *status = prefix##_status;                                                                       \
        return prefix##_status.code;                                                                     \
    }

#endif
