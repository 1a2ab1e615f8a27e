#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include <jerror.h>
#include "codecs_internal.h"

/* libjpeg's error_exit must not return: ours records the message in the status of the call in
 * progress and longjmps back into that call. libjpeg's warnings are mostly corrupt entropy-coded
 * data it papers over (a premature marker, a bad Huffman code, extraneous bytes, a truncated
 * scan), after which it fills the rest of the image with gray: those are errors here. */

struct cic_jpeg_decoder {
    struct jpeg_decompress_struct jpeg;
    struct jpeg_error_mgr errors;
    struct jpeg_source_mgr source;
    int created;
    cic_status *status; /* of the call in progress */
    jmp_buf jump;
    cic_image_info output;
};

static void error_exit(j_common_ptr jpeg) {
    cic_jpeg_decoder *decoder = jpeg->client_data;
    if (decoder->status->code == CIC_OK) {
        char message[JMSG_LENGTH_MAX];
        jpeg->err->format_message(jpeg, message);
        cic_fail(decoder->status, CIC_BAD_INPUT, "%s", message);
    }
    longjmp(decoder->jump, 1);
}

static void ignore_message(j_common_ptr jpeg) {
    (void)jpeg;
}

/* Level -1 is a warning, 0 and up are trace messages. The warnings that concern metadata only
 * (an unknown JFIF revision, an Adobe transform code, an ICC chunk) leave the pixels intact. */
static void emit_message(j_common_ptr jpeg, int level) {
    if (level >= 0) return;
    switch (jpeg->err->msg_code) {
    case JWRN_JFIF_MAJOR:
    case JWRN_ADOBE_XFORM:
    case JWRN_BOGUS_ICC:
        return;
    default:
        jpeg->err->error_exit(jpeg);
    }
}

/* The whole file is in memory, so libjpeg asking for more means the data ended early. libjpeg's
 * own memory source would pretend an end-of-image marker and return a half-gray image. */
static void data_ended(j_decompress_ptr jpeg) {
    cic_jpeg_decoder *decoder = jpeg->client_data;
    cic_fail(decoder->status, CIC_BAD_INPUT, "the file ends before the image does (truncated)");
    longjmp(decoder->jump, 1);
}

static boolean fill_input_buffer(j_decompress_ptr jpeg) {
    data_ended(jpeg);
    return FALSE;
}

static void skip_input_data(j_decompress_ptr jpeg, long count) {
    if (count <= 0) return;
    if ((size_t)count > jpeg->src->bytes_in_buffer) data_ended(jpeg);
    jpeg->src->next_input_byte += count;
    jpeg->src->bytes_in_buffer -= (size_t)count;
}

static void no_op(j_decompress_ptr jpeg) {
    (void)jpeg;
}

int32_t cic_jpeg_open(const uint8_t *bytes, size_t size, cic_jpeg_decoder **out, cic_image_info *info,
                      cic_status *status) {
    cic_succeed(status);
    *out = NULL;
    cic_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    *out = decoder;
    decoder->status = status;
    decoder->jpeg.err = jpeg_std_error(&decoder->errors);
    decoder->errors.error_exit = error_exit;
    decoder->errors.output_message = ignore_message;
    decoder->errors.emit_message = emit_message;
    decoder->jpeg.client_data = decoder; /* jpeg_create_decompress keeps err and client_data */
    if (setjmp(decoder->jump)) return status->code;
    jpeg_create_decompress(&decoder->jpeg);
    decoder->created = 1;

    decoder->source.next_input_byte = bytes;
    decoder->source.bytes_in_buffer = size;
    decoder->source.init_source = no_op;
    decoder->source.fill_input_buffer = fill_input_buffer;
    decoder->source.skip_input_data = skip_input_data;
    decoder->source.resync_to_restart = jpeg_resync_to_restart;
    decoder->source.term_source = no_op;
    decoder->jpeg.src = &decoder->source;

    jpeg_read_header(&decoder->jpeg, TRUE);
    int channels;
    switch (decoder->jpeg.jpeg_color_space) {
    case JCS_GRAYSCALE:
        decoder->jpeg.out_color_space = JCS_GRAYSCALE;
        channels = 1;
        break;
    case JCS_YCbCr:
    case JCS_RGB:
        decoder->jpeg.out_color_space = JCS_RGB;
        channels = 3;
        break;
    default:
        return cic_fail(status, CIC_BAD_INPUT, "unsupported JPEG color space %d (CMYK or YCCK?); cloudgen reads gray and color JPEGs",
                        (int)decoder->jpeg.jpeg_color_space);
    }
    if (decoder->jpeg.data_precision != 8) {
        return cic_fail(status, CIC_BAD_INPUT, "unsupported %d-bit JPEG; cloudgen reads 8-bit JPEGs",
                        decoder->jpeg.data_precision);
    }
    /* A file too short for its header's size is refused before the caller reserves the pixels.
     * Huffman-coded sequential data spends at least 2 bits per 8x8 block (a DC code and an end of
     * block, one bit each at best), so it holds at least one byte per 4 blocks of the largest
     * component. Progressive and arithmetic coding can say far more per bit; those files meet
     * the truncation checks while decoding. */
    JDIMENSION width = decoder->jpeg.image_width, height = decoder->jpeg.image_height;
    uint64_t blocks = (uint64_t)((width + 7) / 8) * (uint64_t)((height + 7) / 8);
    if (!decoder->jpeg.progressive_mode && !decoder->jpeg.arith_code && blocks / 4 > size) {
        return cic_fail(status, CIC_BAD_INPUT,
                        "the header's %ux%u image needs at least %llu bytes of data, the file holds %zu (truncated, or the size is a lie)",
                        width, height, (unsigned long long)(blocks / 4), size);
    }
    /* Progressive (and multi-scan) files keep every component's coefficients, 128 bytes per block,
     * until the last scan. libjpeg's own allocations are held to that plus its tables and row
     * buffers: a larger demand fails (no backing store) instead of growing the process. */
    uint64_t working = decoder->jpeg.progressive_mode || decoder->jpeg.arith_code
                           ? blocks * 128u * (uint64_t)decoder->jpeg.num_components
                           : 0;
    decoder->jpeg.mem->max_memory_to_use = (long)(working + ((uint64_t)64 << 20));
    decoder->output = (cic_image_info){.width = width, .height = height,
                                       .bit_depth = 8, .channels = channels, .working_bytes = working};
    *info = decoder->output;
    return CIC_OK;
}

int32_t cic_jpeg_decode(cic_jpeg_decoder *decoder, void *pixels, size_t pixels_size, cic_status *status) {
    cic_succeed(status);
    decoder->status = status;
    const cic_image_info *o = &decoder->output;
    size_t row_bytes = (size_t)o->width * (size_t)o->channels;
    if (pixels_size != row_bytes * o->height) {
        return cic_fail(status, CIC_BAD_INPUT, "output buffer of %zu bytes does not fit a %ux%u image",
                        pixels_size, o->width, o->height);
    }
    if (setjmp(decoder->jump)) return status->code;
    jpeg_start_decompress(&decoder->jpeg);
    if (decoder->jpeg.output_width != o->width || decoder->jpeg.output_height != o->height ||
        decoder->jpeg.output_components != o->channels) {
        return cic_fail(status, CIC_BAD_INPUT, "libjpeg's output size differs from the header's");
    }
    /* Rows go straight into the caller's buffer, several per call as libjpeg prefers. */
    enum { batch = 16 };
    JSAMPROW rows[batch];
    while (decoder->jpeg.output_scanline < o->height) {
        JDIMENSION first = decoder->jpeg.output_scanline;
        JDIMENSION count = o->height - first < batch ? o->height - first : batch;
        for (JDIMENSION i = 0; i < count; i++) rows[i] = (JSAMPROW)pixels + row_bytes * (first + i);
        jpeg_read_scanlines(&decoder->jpeg, rows, count);
    }
    /* Reads to the end-of-image marker, so that a file cut after its last scan is reported. */
    jpeg_finish_decompress(&decoder->jpeg);
    return CIC_OK;
}

void cic_jpeg_close(cic_jpeg_decoder *decoder) {
    if (!decoder) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->jpeg);
    free(decoder);
}
