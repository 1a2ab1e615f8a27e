#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "codecs_internal.h"

/* libpng reports errors by calling an error function that must not return: ours records the
 * message in the status of the call in progress and longjmps back into that call. */

struct cic_png_decoder {
    png_structp png;
    png_infop info;
    const uint8_t *bytes;
    size_t size;
    size_t offset;
    cic_status *status; /* of the call in progress */
    jmp_buf jump;
    cic_image_info output;
};

static void decoder_error(png_structp png, png_const_charp message) {
    cic_png_decoder *decoder = png_get_error_ptr(png);
    cic_fail(decoder->status, CIC_BAD_INPUT, "%s", message);
    longjmp(decoder->jump, 1);
}

static void ignore_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void read_from_memory(png_structp png, png_bytep out, size_t count) {
    cic_png_decoder *decoder = png_get_io_ptr(png);
    if (count > decoder->size - decoder->offset) png_error(png, "the file ends before the image does (truncated)");
    memcpy(out, decoder->bytes + decoder->offset, count);
    decoder->offset += count;
}

int32_t cic_png_open(const uint8_t *bytes, size_t size, cic_png_decoder **out, cic_image_info *info,
                     cic_status *status) {
    cic_succeed(status);
    *out = NULL;
    cic_png_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    decoder->bytes = bytes;
    decoder->size = size;
    decoder->status = status;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, decoder_error, ignore_warning);
    if (!decoder->png) {
        free(decoder);
        return cic_fail(status, CIC_IO_ERROR, "libpng could not start (out of memory?)");
    }
    *out = decoder; /* from here on cic_png_close frees everything */
    decoder->info = png_create_info_struct(decoder->png);
    if (!decoder->info) return cic_fail(status, CIC_IO_ERROR, "libpng could not start (out of memory?)");
    if (setjmp(decoder->jump)) return status->code;

    png_set_read_fn(decoder->png, decoder, read_from_memory);
    /* Every chunk's CRC already checks the compressed bytes, so zlib's Adler-32 over the inflated
     * image (a second pass over every decoded byte) adds no protection. */
    png_set_option(decoder->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    /* Damage is an error wherever it is: a CRC error in an ancillary chunk too (libpng's default
     * warns and drops the chunk), and libpng's "benign" errors (extra compressed data, too much
     * image data), which it would otherwise only warn about. */
    png_set_crc_action(decoder->png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_benign_errors(decoder->png, 0);
    /* None of the ancillary chunks changes the samples we return (no gamma, color management or
     * transparency is applied), so they are skipped unread: a quirky ICC profile or text chunk
     * cannot fail a depth map now that libpng's benign errors are errors. */
    static const png_byte skipped[] = "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0pHYs\0"
                                      "sBIT\0sCAL\0sPLT\0sRGB\0tEXt\0tIME\0tRNS\0zTXt";
    png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, skipped, (int)(sizeof skipped / 5));
    png_read_info(decoder->png, decoder->info);
    png_uint_32 width, height;
    int bit_depth, color_type;
    png_get_IHDR(decoder->png, decoder->info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);

    /* Only transforms that keep sample values: palette indices become their RGB entries, 1/2/4-bit
     * gray becomes 8-bit. No gamma, no sRGB, no background: depth must come out exact. A tRNS
     * chunk is ignored, as alpha is (clouds have none). */
    int channels;
    switch (color_type) {
    case PNG_COLOR_TYPE_PALETTE:
        png_set_palette_to_rgb(decoder->png);
        channels = 3;
        break;
    case PNG_COLOR_TYPE_GRAY:
        if (bit_depth < 8) png_set_expand_gray_1_2_4_to_8(decoder->png);
        channels = 1;
        break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: channels = 2; break;
    case PNG_COLOR_TYPE_RGB: channels = 3; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: channels = 4; break;
    default: return cic_fail(status, CIC_BAD_INPUT, "unknown PNG color type %d", color_type);
    }
    /* Deflate packs at most 1032 bytes into one: a file too short for the header's size is a
     * lie or truncated, and is refused before the caller reserves the pixels. */
    uint64_t packed_row = ((uint64_t)width * (uint64_t)png_get_channels(decoder->png, decoder->info) * (uint64_t)bit_depth + 7) / 8;
    uint64_t raw = (uint64_t)height * (packed_row + 1);
    if (raw / 1032 > size) {
        return cic_fail(status, CIC_BAD_INPUT,
                        "the header's %ux%u image needs at least %llu bytes of compressed data, the file holds %zu (truncated, or the size is a lie)",
                        (unsigned)width, (unsigned)height, (unsigned long long)(raw / 1032), size);
    }
    if (bit_depth == 16 && CIC_HOST_LITTLE_ENDIAN) png_set_swap(decoder->png);
    png_set_interlace_handling(decoder->png);

    decoder->output = (cic_image_info){.width = width, .height = height,
                                       .bit_depth = bit_depth == 16 ? 16 : 8, .channels = channels};
    *info = decoder->output;
    return CIC_OK;
}

int32_t cic_png_decode(cic_png_decoder *decoder, void *pixels, size_t pixels_size, cic_status *status) {
    cic_succeed(status);
    decoder->status = status;
    const cic_image_info *o = &decoder->output;
    size_t row_bytes = (size_t)o->width * (size_t)o->channels * (size_t)(o->bit_depth / 8);
    if (pixels_size != row_bytes * o->height) {
        return cic_fail(status, CIC_BAD_INPUT, "output buffer of %zu bytes does not fit a %ux%u image",
                        pixels_size, o->width, o->height);
    }
    /* Row pointers into the caller's buffer, so that libpng decodes straight into it (interlaced
     * images need all rows at once). */
    png_bytep *volatile rows = malloc(sizeof(png_bytep) * o->height);
    if (!rows) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    if (setjmp(decoder->jump)) {
        free(rows);
        return status->code;
    }
    for (uint32_t y = 0; y < o->height; y++) rows[y] = (png_bytep)pixels + row_bytes * y;
    png_read_update_info(decoder->png, decoder->info);
    if (png_get_rowbytes(decoder->png, decoder->info) != row_bytes) {
        png_error(decoder->png, "libpng's row size differs from the expected one");
    }
    png_read_image(decoder->png, rows);
    /* Reads up to IEND, so that a file cut after its pixel data is still reported as truncated. */
    png_read_end(decoder->png, NULL);
    free(rows);
    return CIC_OK;
}

void cic_png_close(cic_png_decoder *decoder) {
    if (!decoder) return;
    png_destroy_read_struct(&decoder->png, decoder->info ? &decoder->info : NULL, NULL);
    free(decoder);
}

/* Writing: errors are the file system's or the allocator's (the arguments are checked first), so
 * they are I/O errors and carry errno's text. One encoder serves both destinations: a FILE, or a
 * growing memory buffer (animated PNGs re-wrap each encoded frame's data). */

struct png_writer {
    FILE *file;          /* NULL when encoding to memory */
    uint8_t *bytes;      /* memory destination: malloc'd, grows by doubling */
    size_t size;
    size_t capacity;
    cic_status *status;
    jmp_buf jump;
};

static void writer_error(png_structp png, png_const_charp message) {
    struct png_writer *writer = png_get_error_ptr(png);
    if (writer->status->code == CIC_OK) cic_fail(writer->status, CIC_IO_ERROR, "%s", message);
    longjmp(writer->jump, 1);
}

static void write_out(png_structp png, png_bytep data, size_t count) {
    struct png_writer *writer = png_get_io_ptr(png);
    if (writer->file) {
        if (fwrite(data, 1, count, writer->file) != count) {
            cic_fail(writer->status, CIC_IO_ERROR, "cannot write: %s", strerror(errno));
            png_error(png, "write failed");
        }
        return;
    }
    if (count > writer->capacity - writer->size) {
        size_t capacity = writer->capacity ? writer->capacity : 65536;
        while (count > capacity - writer->size) capacity *= 2;
        uint8_t *grown = realloc(writer->bytes, capacity);
        if (!grown) {
            cic_fail(writer->status, CIC_IO_ERROR, "out of memory encoding a PNG");
            png_error(png, "out of memory");
        }
        writer->bytes = grown;
        writer->capacity = capacity;
    }
    memcpy(writer->bytes + writer->size, data, count);
    writer->size += count;
}

static void flush_out(png_structp png) {
    struct png_writer *writer = png_get_io_ptr(png);
    if (writer->file && fflush(writer->file) != 0) {
        cic_fail(writer->status, CIC_IO_ERROR, "cannot write: %s", strerror(errno));
        png_error(png, "flush failed");
    }
}

static int32_t check_write_arguments(uint32_t width, uint32_t height, int32_t channels, int32_t bit_depth,
                                     int32_t compression_level, cic_status *status) {
    cic_succeed(status);
    if (width == 0 || height == 0 || width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX) {
        return cic_fail(status, CIC_BAD_INPUT, "cannot write a %ux%u PNG", width, height);
    }
    if ((channels != 1 && channels != 3) || (bit_depth != 8 && bit_depth != 16)) {
        return cic_fail(status, CIC_BAD_INPUT, "cannot write %d-bit PNG with %d channels", bit_depth, channels);
    }
    if (compression_level < 0 || compression_level > 9) {
        return cic_fail(status, CIC_BAD_INPUT, "PNG compression level %d is outside 0...9", compression_level);
    }
    return CIC_OK;
}

/* Encodes into `writer`'s destination; the arguments have been checked. */
static int32_t encode(struct png_writer *writer, const void *pixels, uint32_t width, uint32_t height,
                      int32_t channels, int32_t bit_depth, int32_t compression_level, int32_t fast) {
    cic_status *status = writer->status;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, writer, writer_error, ignore_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(png ? &png : NULL, NULL);
        return cic_fail(status, CIC_IO_ERROR, "libpng could not start (out of memory?)");
    }
    if (setjmp(writer->jump)) {
        png_destroy_write_struct(&png, &info);
        return status->code;
    }
    png_set_write_fn(png, writer, write_out, flush_out);
    png_set_compression_level(png, compression_level);
    /* libpng's default tries all five row filters on every row and keeps the best guess; the SUB
     * filter alone costs one subtraction per byte and still turns flat backgrounds and smooth
     * gradients into runs of zeros, which is most of what a rendered preview holds. */
    if (fast) png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_IHDR(png, info, width, height, bit_depth, channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (bit_depth == 16 && CIC_HOST_LITTLE_ENDIAN) png_set_swap(png);
    size_t row_bytes = (size_t)width * (size_t)channels * (size_t)(bit_depth / 8);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)pixels + row_bytes * y);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return CIC_OK;
}

int32_t cic_png_write(const char *path, const void *pixels, uint32_t width, uint32_t height, int32_t channels,
                      int32_t bit_depth, int32_t compression_level, int32_t fast_filter, cic_status *status) {
    if (check_write_arguments(width, height, channels, bit_depth, compression_level, status) != CIC_OK) {
        return status->code;
    }
    struct png_writer writer = {.status = status};
    writer.file = fopen(path, "wb");
    if (!writer.file) return cic_fail(status, CIC_IO_ERROR, "cannot create: %s", strerror(errno));
    if (encode(&writer, pixels, width, height, channels, bit_depth, compression_level, fast_filter) != CIC_OK) {
        fclose(writer.file);
        return status->code;
    }
    /* fclose reports the last buffered write's failure (a full disk shows up here). */
    if (fclose(writer.file) != 0) return cic_fail(status, CIC_IO_ERROR, "cannot write: %s", strerror(errno));
    return CIC_OK;
}

int32_t cic_png_encode(const void *pixels, uint32_t width, uint32_t height, int32_t channels, int32_t bit_depth,
                       int32_t compression_level, int32_t fast_filter, uint8_t **bytes, size_t *size,
                       cic_status *status) {
    *bytes = NULL;
    *size = 0;
    if (check_write_arguments(width, height, channels, bit_depth, compression_level, status) != CIC_OK) {
        return status->code;
    }
    struct png_writer writer = {.status = status};
    if (encode(&writer, pixels, width, height, channels, bit_depth, compression_level, fast_filter) != CIC_OK) {
        free(writer.bytes);
        return status->code;
    }
    *bytes = writer.bytes;
    *size = writer.size;
    return CIC_OK;
}

void cic_free(void *bytes) { free(bytes); }

uint32_t cic_crc32(uint32_t crc, const uint8_t *bytes, size_t size) {
    /* zlib's crc32 takes a uInt length; feed it in pieces that fit. */
    while (size > 0) {
        uInt piece = size > 0x40000000u ? 0x40000000u : (uInt)size;
        crc = (uint32_t)crc32(crc, bytes, piece);
        bytes += piece;
        size -= piece;
    }
    return crc;
}
