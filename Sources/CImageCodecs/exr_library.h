/*
 * OpenEXR's C core library (OpenEXRCore), opened with dlopen on the first EXR rather than linked:
 * only Record3D exports store depth as EXR, and every other cloudgen process would otherwise load
 * it (and its Imath and zlib users) at start (Docs/architecture.md, "Start-up").
 *
 * exr_codec.c and exr_encoder.c include this header instead of <OpenEXR/openexr.h> and call the
 * library as usual: each function they use is a macro for a pointer in cic_exr_functions, typed from
 * its declaration in openexr.h, as tiff_library.h does for libtiff. A function missing here fails
 * the link (nothing links OpenEXRCore): add it to CIC_EXR_FUNCTIONS and give it a macro below.
 */
#ifndef CIC_EXR_LIBRARY_H
#define CIC_EXR_LIBRARY_H

#include <OpenEXR/openexr.h>
#include "library_loader.h"

#define CIC_EXR_FUNCTIONS(X) \
    X(exr_add_channel) X(exr_add_part) X(exr_decoding_choose_default_routines) X(exr_decoding_destroy) \
    X(exr_decoding_initialize) X(exr_decoding_run) X(exr_decoding_update) X(exr_encoding_choose_default_routines) \
    X(exr_encoding_destroy) X(exr_encoding_initialize) X(exr_encoding_run) X(exr_encoding_update) X(exr_finish) \
    X(exr_get_channels) X(exr_get_count) X(exr_get_data_window) X(exr_get_default_error_message) \
    X(exr_get_scanlines_per_chunk) X(exr_get_storage) X(exr_initialize_required_attr_simple) \
    X(exr_read_scanline_chunk_info) X(exr_start_read) X(exr_start_write) X(exr_write_header) \
    X(exr_write_scanline_chunk_info)

typedef struct cic_exr_functions {
    CIC_EXR_FUNCTIONS(CIC_FUNCTION_FIELD)
} cic_exr_functions;

extern cic_exr_functions cic_exr;

/* Loads OpenEXRCore once per process and fills cic_exr: CIC_OK, or CIC_IO_ERROR naming the library
   and its Debian package, on this call and every later one. Call it before any exr_ function. */
int32_t cic_exr_load(cic_status *status);

/* The library reports an error's details only to a handler, once per failure, on the failing
   thread: this one keeps the last message of the thread, and cic_exr_fail puts it (or the code's
   own text when there was none) into a status. */
void cic_exr_keep_message(exr_const_context_t context, exr_result_t code, const char *message);
/* Forgets the thread's last message: at the start of each entry point, so that none is stale. */
void cic_exr_forget_message(void);
int32_t cic_exr_fail(cic_status *status, exr_result_t code, const char *doing);

#define exr_add_channel cic_exr.exr_add_channel
#define exr_add_part cic_exr.exr_add_part
#define exr_decoding_choose_default_routines cic_exr.exr_decoding_choose_default_routines
#define exr_decoding_destroy cic_exr.exr_decoding_destroy
#define exr_decoding_initialize cic_exr.exr_decoding_initialize
#define exr_decoding_run cic_exr.exr_decoding_run
#define exr_decoding_update cic_exr.exr_decoding_update
#define exr_encoding_choose_default_routines cic_exr.exr_encoding_choose_default_routines
#define exr_encoding_destroy cic_exr.exr_encoding_destroy
#define exr_encoding_initialize cic_exr.exr_encoding_initialize
#define exr_encoding_run cic_exr.exr_encoding_run
#define exr_encoding_update cic_exr.exr_encoding_update
#define exr_finish cic_exr.exr_finish
#define exr_get_channels cic_exr.exr_get_channels
#define exr_get_count cic_exr.exr_get_count
#define exr_get_data_window cic_exr.exr_get_data_window
#define exr_get_default_error_message cic_exr.exr_get_default_error_message
#define exr_get_scanlines_per_chunk cic_exr.exr_get_scanlines_per_chunk
#define exr_get_storage cic_exr.exr_get_storage
#define exr_initialize_required_attr_simple cic_exr.exr_initialize_required_attr_simple
#define exr_read_scanline_chunk_info cic_exr.exr_read_scanline_chunk_info
#define exr_start_read cic_exr.exr_start_read
#define exr_start_write cic_exr.exr_start_write
#define exr_write_header cic_exr.exr_write_header
#define exr_write_scanline_chunk_info cic_exr.exr_write_scanline_chunk_info

#endif
