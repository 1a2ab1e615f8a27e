#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include "codecs_internal.h"

/* libjpeg reports an encoding error by longjmp, as when decoding (jpeg_codec.c). */
struct jpeg_encoder {
    struct jpeg_compress_struct jpeg;
    struct jpeg_error_mgr errors;
    cic_status *status;
    jmp_buf jump;
};

static void encoder_error_exit(j_common_ptr jpeg) {
    struct jpeg_encoder *encoder = jpeg->client_data;
    char message[JMSG_LENGTH_MAX];
    jpeg->err->format_message(jpeg, message);
    cic_fail(encoder->status, CIC_IO_ERROR, "%s", message);
    longjmp(encoder->jump, 1);
}

static void encoder_ignore_message(j_common_ptr jpeg, int level) {
    (void)jpeg;
    (void)level;
}

int32_t cic_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int32_t channels, int32_t quality,
                        uint8_t **bytes, size_t *size, cic_status *status) {
    cic_succeed(status);
    *bytes = NULL;
    *size = 0;
    if (width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        return cic_fail(status, CIC_BAD_INPUT, "a JPEG is 1 to %d pixels on a side, not %ux%u", (int)JPEG_MAX_DIMENSION, width, height);
    }
    if (channels != 1 && channels != 3) return cic_fail(status, CIC_BAD_INPUT, "a JPEG here is gray or RGB, not %d channels", channels);
    if (quality < 1 || quality > 100) return cic_fail(status, CIC_BAD_INPUT, "JPEG quality %d is outside 1...100", quality);

    /* volatile: read after a longjmp back into this frame. */
    struct jpeg_encoder *volatile encoder = calloc(1, sizeof *encoder);
    unsigned char *volatile output = NULL;
    unsigned long output_size = 0;
    if (!encoder) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    encoder->status = status;
    encoder->jpeg.err = jpeg_std_error(&encoder->errors);
    encoder->errors.error_exit = encoder_error_exit;
    encoder->errors.emit_message = encoder_ignore_message;
    encoder->jpeg.client_data = encoder;
    if (setjmp(encoder->jump)) {
        jpeg_destroy_compress(&encoder->jpeg);
        free(output);
        free(encoder);
        return status->code;
    }
    jpeg_create_compress(&encoder->jpeg);
    jpeg_mem_dest(&encoder->jpeg, (unsigned char **)&output, &output_size);
    encoder->jpeg.image_width = width;
    encoder->jpeg.image_height = height;
    encoder->jpeg.input_components = channels;
    encoder->jpeg.in_color_space = channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&encoder->jpeg);
    jpeg_set_quality(&encoder->jpeg, quality, TRUE);
    jpeg_start_compress(&encoder->jpeg, TRUE);
    const size_t stride = (size_t)width * (size_t)channels;
    while (encoder->jpeg.next_scanline < height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)encoder->jpeg.next_scanline * stride);
        jpeg_write_scanlines(&encoder->jpeg, &row, 1);
    }
    jpeg_finish_compress(&encoder->jpeg);
    jpeg_destroy_compress(&encoder->jpeg);
    free(encoder);
    *bytes = output;
    *size = output_size;
    return CIC_OK;
}
