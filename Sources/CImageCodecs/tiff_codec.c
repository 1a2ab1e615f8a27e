#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include "codecs_internal.h"

/* libtiff reports through handlers instead of longjmp. The per-file handlers of libtiff 4.5
 * (TIFFOpenOptions) write into the status of the call in progress and tell libtiff the message
 * is handled, so the process-wide handlers, which print to stderr, are never reached; those are
 * silenced too, for messages libtiff emits before a file's handlers exist. */

struct cic_tiff_decoder {
    TIFF *tiff;
    const uint8_t *bytes;
    size_t size;
    uint64_t offset;
    cic_status *status; /* of the call in progress */
    cic_image_info output;
    uint16_t planar_config;
    int decoding; /* set while pixel data is decoded: warnings then mean corrupt data */
};

static int record_error(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    (void)module;
    cic_tiff_decoder *decoder = user_data;
    /* The first error is the cause; libtiff's later ones are its consequences. */
    if (decoder->status->code == CIC_OK) cic_vfail(decoder->status, CIC_BAD_INPUT, format, arguments);
    return 1;
}

/* Warnings while the directory is read are about metadata (an unknown tag, a bad ASCII field)
 * and are ignored; while pixel data is decoded they are corruption libtiff worked around (a
 * strip not ending in its end code, bytes discarded to avoid an overrun), so they fail the image. */
static int record_warning(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    cic_tiff_decoder *decoder = user_data;
    if (decoder->decoding) return record_error(tiff, user_data, module, format, arguments);
    return 1;
}

static pthread_once_t silence_once = PTHREAD_ONCE_INIT;

static void silence_global_handlers(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

/* Client procedures over the in-memory file. */

static tmsize_t read_memory(thandle_t handle, void *out, tmsize_t count) {
    cic_tiff_decoder *decoder = handle;
    if (count <= 0 || decoder->offset >= decoder->size) return 0;
    uint64_t available = decoder->size - decoder->offset;
    uint64_t n = (uint64_t)count < available ? (uint64_t)count : available;
    memcpy(out, decoder->bytes + decoder->offset, (size_t)n);
    decoder->offset += n;
    return (tmsize_t)n;
}

static tmsize_t refuse_write(thandle_t handle, void *data, tmsize_t count) {
    (void)handle;
    (void)data;
    (void)count;
    return 0;
}

static toff_t seek_memory(thandle_t handle, toff_t offset, int whence) {
    cic_tiff_decoder *decoder = handle;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? decoder->offset : decoder->size;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return (toff_t)-1;
    /* Offsets beyond the end are allowed (reads there return nothing); overflow is not. */
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    decoder->offset = base + offset;
    return decoder->offset;
}

static int close_memory(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t memory_size(thandle_t handle) {
    return ((cic_tiff_decoder *)handle)->size;
}

/* Mapping lets libtiff read strips in place instead of copying them; it only reads the map. */
static int map_memory(thandle_t handle, void **base, toff_t *size) {
    cic_tiff_decoder *decoder = handle;
    *base = (void *)decoder->bytes;
    *size = decoder->size;
    return 1;
}

static void unmap_memory(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

/* Fails with libtiff's message when it gave one, else with `fallback`. */
static int32_t tiff_failure(cic_tiff_decoder *decoder, const char *fallback) {
    if (decoder->status->code != CIC_OK) return decoder->status->code;
    return cic_fail(decoder->status, CIC_BAD_INPUT, "%s", fallback);
}

static const char *photometric_name(uint16_t photometric) {
    switch (photometric) {
    case PHOTOMETRIC_MINISWHITE: return "min-is-white";
    case PHOTOMETRIC_PALETTE: return "palette";
    case PHOTOMETRIC_MASK: return "transparency mask";
    case PHOTOMETRIC_SEPARATED: return "separated (CMYK)";
    case PHOTOMETRIC_YCBCR: return "YCbCr";
    case PHOTOMETRIC_CIELAB: return "CIE L*a*b*";
    default: return "unusual";
    }
}

/* The most output one stored byte can stand for under `compression`, or 0 when not bounded
 * usefully (JPEG, ZSTD, LZMA...): PackBits repeats one byte 128 times for 2, LZW's longest code
 * (12 bits) stands for at most 4096 bytes, deflate packs at most 1032 bytes into one. */
static uint64_t max_expansion(uint16_t compression) {
    switch (compression) {
    case COMPRESSION_NONE: return 1;
    case COMPRESSION_PACKBITS: return 64;
    case COMPRESSION_LZW: return 2731;
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return 1032;
    default: return 0;
    }
}

/* Refuses a file whose stored strips or tiles (as their byte counts say, each cut at the file's
 * end) cannot hold an image of the header's size, before the caller reserves the pixels. */
static int32_t check_stored_size(cic_tiff_decoder *decoder, uint32_t width, uint32_t height, uint64_t bits_per_pixel) {
    TIFF *tiff = decoder->tiff;
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &compression);
    uint64_t expansion = max_expansion(compression);
    if (expansion == 0) return CIC_OK;
    int tiled = TIFFIsTiled(tiff);
    uint64_t *counts = NULL;
    if (!TIFFGetField(tiff, tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS, &counts) || !counts) {
        return tiff_failure(decoder, "the TIFF has no strip or tile byte counts");
    }
    uint32_t n = tiled ? TIFFNumberOfTiles(tiff) : TIFFNumberOfStrips(tiff);
    uint64_t stored = 0;
    for (uint32_t i = 0; i < n && stored < decoder->size; i++) {
        stored += counts[i] < decoder->size ? counts[i] : decoder->size;
    }
    if (stored > decoder->size) stored = decoder->size;
    uint64_t raw = (uint64_t)height * (((uint64_t)width * bits_per_pixel + 7) / 8);
    if (raw / expansion > stored) {
        return cic_fail(decoder->status, CIC_BAD_INPUT,
                        "the header's %ux%u image needs at least %llu bytes of stored data, the file holds %llu (truncated, or the size is a lie)",
                        width, height, (unsigned long long)(raw / expansion), (unsigned long long)stored);
    }
    return CIC_OK;
}

int32_t cic_tiff_open(const uint8_t *bytes, size_t size, cic_tiff_decoder **out, cic_image_info *info,
                      cic_status *status) {
    cic_succeed(status);
    *out = NULL;
    pthread_once(&silence_once, silence_global_handlers);
    cic_tiff_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    *out = decoder;
    decoder->bytes = bytes;
    decoder->size = size;
    decoder->status = status;

    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    TIFFOpenOptionsSetErrorHandlerExtR(options, record_error, decoder);
    TIFFOpenOptionsSetWarningHandlerExtR(options, record_warning, decoder);
    /* libtiff decodes into our buffers and reads strips in place from the mapped bytes, so what it
     * allocates itself is tag arrays and codec state: a header whose counts would need more than
     * 1 GiB at once is lying, and fails here instead of reserving it. */
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)1 << 30);
    decoder->tiff = TIFFClientOpenExt("TIFF", "r", decoder, read_memory, refuse_write, seek_memory, close_memory,
                                      memory_size, map_memory, unmap_memory, options);
    TIFFOpenOptionsFree(options);
    if (!decoder->tiff) return tiff_failure(decoder, "not a readable TIFF");

    TIFF *tiff = decoder->tiff;
    uint32_t width = 0, height = 0;
    uint16_t bits = 0, samples = 0, format = 0, photometric = 0, planar = 0;
    if (!TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height)) {
        return tiff_failure(decoder, "the TIFF has no image size");
    }
    TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_PLANARCONFIG, &planar);
    /* Photometric is required by the standard but missing in some writers' files; gray or RGB
     * follows from the sample count then. */
    if (!TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &photometric)) {
        photometric = samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    }
    if (bits != 8 && bits != 16) {
        return cic_fail(status, CIC_BAD_INPUT, "unsupported %u-bit TIFF samples; cloudgen reads 8- and 16-bit", bits);
    }
    if (format != SAMPLEFORMAT_UINT) {
        return cic_fail(status, CIC_BAD_INPUT, "unsupported TIFF sample format %u; cloudgen reads unsigned integers", format);
    }
    if (photometric != PHOTOMETRIC_MINISBLACK && photometric != PHOTOMETRIC_RGB) {
        return cic_fail(status, CIC_BAD_INPUT, "unsupported %s TIFF; cloudgen reads gray and RGB", photometric_name(photometric));
    }
    /* Gray or RGB, each with or without one more (alpha) sample. */
    if (photometric == PHOTOMETRIC_MINISBLACK ? samples > 2 || samples < 1 : samples != 3 && samples != 4) {
        return cic_fail(status, CIC_BAD_INPUT, "unsupported TIFF with %u samples per %s pixel", samples,
                        photometric == PHOTOMETRIC_RGB ? "RGB" : "gray");
    }
    decoder->planar_config = planar;
    int32_t short_data = check_stored_size(decoder, width, height, (uint64_t)bits * samples);
    if (short_data != CIC_OK) return short_data;
    decoder->output = (cic_image_info){.width = width, .height = height, .bit_depth = bits, .channels = samples};
    *info = decoder->output;
    return CIC_OK;
}

/* Copies a decoded strip or tile (`rows` x `columns` pixels of `chunk_samples` interleaved
 * samples each, `chunk_row_bytes` apart) to (x, y) of the packed output: whole pixels when the
 * chunk holds all samples, else (planar files, one sample per chunk) into sample `first_sample`
 * of each pixel. */
static void copy_chunk(const cic_image_info *o, uint8_t *pixels, const uint8_t *chunk, size_t chunk_row_bytes,
                       uint32_t x, uint32_t y, uint32_t columns, uint32_t rows, int chunk_samples, int first_sample) {
    size_t sample_bytes = (size_t)o->bit_depth / 8;
    size_t pixel_bytes = sample_bytes * (size_t)o->channels;
    size_t row_bytes = pixel_bytes * o->width;
    for (uint32_t r = 0; r < rows; r++) {
        const uint8_t *from = chunk + chunk_row_bytes * r;
        uint8_t *to = pixels + row_bytes * (y + r) + pixel_bytes * x;
        if (chunk_samples == o->channels) {
            memcpy(to, from, pixel_bytes * columns);
            continue;
        }
        to += sample_bytes * (size_t)first_sample;
        for (uint32_t c = 0; c < columns; c++) {
            memcpy(to, from, sample_bytes);
            to += pixel_bytes;
            from += sample_bytes;
        }
    }
}

int32_t cic_tiff_decode(cic_tiff_decoder *decoder, void *pixels, size_t pixels_size, cic_status *status) {
    cic_succeed(status);
    decoder->status = status;
    TIFF *tiff = decoder->tiff;
    const cic_image_info *o = &decoder->output;
    size_t sample_bytes = (size_t)o->bit_depth / 8;
    size_t row_bytes = (size_t)o->width * (size_t)o->channels * sample_bytes;
    if (pixels_size != row_bytes * o->height) {
        return cic_fail(status, CIC_BAD_INPUT, "output buffer of %zu bytes does not fit a %ux%u image",
                        pixels_size, o->width, o->height);
    }
    decoder->decoding = 1;
    int planar = decoder->planar_config == PLANARCONFIG_SEPARATE && o->channels > 1;
    int chunk_samples = planar ? 1 : o->channels;
    int planes = planar ? o->channels : 1;

    if (!TIFFIsTiled(tiff)) {
        uint32_t rows_per_strip = 0;
        TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
        if (rows_per_strip == 0 || rows_per_strip > o->height) rows_per_strip = o->height;
        size_t strip_row_bytes = (size_t)o->width * (size_t)chunk_samples * sample_bytes;
        /* Interleaved strips are already the output's layout: decode them in place. */
        uint8_t *scratch = NULL;
        if (planar) {
            scratch = malloc(strip_row_bytes * rows_per_strip);
            if (!scratch) return cic_fail(status, CIC_IO_ERROR, "out of memory");
        }
        for (int plane = 0; plane < planes; plane++) {
            for (uint32_t y = 0; y < o->height; y += rows_per_strip) {
                uint32_t rows = o->height - y < rows_per_strip ? o->height - y : rows_per_strip;
                tmsize_t expected = (tmsize_t)(strip_row_bytes * rows);
                uint8_t *target = planar ? scratch : (uint8_t *)pixels + row_bytes * y;
                tmsize_t got = TIFFReadEncodedStrip(tiff, TIFFComputeStrip(tiff, y, (uint16_t)plane), target, expected);
                if (got != expected || status->code != CIC_OK) {
                    free(scratch);
                    if (got >= 0 && status->code == CIC_OK) return cic_fail(status, CIC_BAD_INPUT, "strip at row %u holds too few rows", y);
                    return tiff_failure(decoder, "cannot decode a strip");
                }
                if (planar) copy_chunk(o, pixels, scratch, strip_row_bytes, 0, y, o->width, rows, 1, plane);
            }
        }
        free(scratch);
        return CIC_OK;
    }

    uint32_t tile_width = 0, tile_height = 0;
    TIFFGetField(tiff, TIFFTAG_TILEWIDTH, &tile_width);
    TIFFGetField(tiff, TIFFTAG_TILELENGTH, &tile_height);
    tmsize_t tile_size = TIFFTileSize(tiff);
    size_t tile_row_bytes = (size_t)tile_width * (size_t)chunk_samples * sample_bytes;
    if (tile_width == 0 || tile_height == 0 || tile_size <= 0 || (size_t)tile_size != tile_row_bytes * tile_height) {
        return tiff_failure(decoder, "the TIFF's tile size is invalid");
    }
    /* The tile buffer's size comes from the header: tiles may exceed a small image, but not both
     * the image and 1024 pixels on a side, so a lying header cannot make it huge. */
    if ((tile_width > o->width && tile_width > 1024) || (tile_height > o->height && tile_height > 1024)) {
        return cic_fail(status, CIC_BAD_INPUT, "TIFF tiles of %ux%u are larger than the %ux%u image", tile_width,
                        tile_height, o->width, o->height);
    }
    uint8_t *tile = malloc((size_t)tile_size);
    if (!tile) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    for (int plane = 0; plane < planes; plane++) {
        for (uint32_t y = 0; y < o->height; y += tile_height) {
            for (uint32_t x = 0; x < o->width; x += tile_width) {
                tmsize_t got = TIFFReadEncodedTile(tiff, TIFFComputeTile(tiff, x, y, 0, (uint16_t)plane), tile, tile_size);
                if (got != tile_size || status->code != CIC_OK) {
                    free(tile);
                    if (got >= 0 && status->code == CIC_OK) return cic_fail(status, CIC_BAD_INPUT, "tile at (%u, %u) is short", x, y);
                    return tiff_failure(decoder, "cannot decode a tile");
                }
                /* Edge tiles extend past the image; only their inside is copied. */
                uint32_t columns = o->width - x < tile_width ? o->width - x : tile_width;
                uint32_t rows = o->height - y < tile_height ? o->height - y : tile_height;
                copy_chunk(o, pixels, tile, tile_row_bytes, x, y, columns, rows, chunk_samples, plane);
            }
        }
    }
    free(tile);
    return CIC_OK;
}

void cic_tiff_close(cic_tiff_decoder *decoder) {
    if (!decoder) return;
    if (decoder->tiff) TIFFClose(decoder->tiff);
    free(decoder);
}
