/*
 * C over Debian's libpng, libjpeg-turbo and libtiff for CloudImages.
 *
 * Those libraries report errors by longjmp (libpng, libjpeg) or through process-wide handlers
 * that print (libtiff). Swift can do neither, so every entry point here catches the library's
 * error itself and returns a status: a code and a one-line message without the file name
 * (the caller knows it better). Nothing here prints or aborts.
 *
 * Decoding is two calls on an opaque decoder, so that the caller can check the dimensions and
 * allocate the exact output buffer before any pixel buffer exists:
 *   cic_X_open(bytes, size, &decoder, &info, &status)   reads the header only
 *   cic_X_decode(decoder, pixels, pixels_size, &status) writes rows into `pixels`
 *   cic_X_close(decoder)                                always, whatever happened
 * The encoded bytes must stay valid and unchanged until cic_X_close. Output rows are packed
 * (width * channels * bit_depth / 8 bytes each, no padding), channels interleaved, 16-bit
 * samples in host byte order.
 */
#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H

#include <stddef.h>
#include <stdint.h>
#include <cstatus.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The status every function reports through: cloudgen's one C status (cstatus.h). */
enum { CIC_OK = CS_OK, CIC_BAD_INPUT = CS_BAD_INPUT, CIC_IO_ERROR = CS_IO_ERROR };
typedef cs_status cic_status;

/* What cic_X_decode will write: the output format after expansion (palette -> RGB, 1/2/4-bit
 * gray -> 8-bit, PNG transparency -> alpha channel). */
typedef struct cic_image_info {
    uint32_t width;
    uint32_t height;
    int32_t bit_depth; /* 8 or 16 */
    int32_t channels;  /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    /* Memory the decoder itself needs while decoding, beyond the caller's pixel buffer
     * (a progressive JPEG's coefficients); the caller counts it against its budget. */
    uint64_t working_bytes;
} cic_image_info;

typedef struct cic_png_decoder cic_png_decoder;
typedef struct cic_jpeg_decoder cic_jpeg_decoder;
typedef struct cic_tiff_decoder cic_tiff_decoder;

/* PNG: every color type and bit depth; 16-bit samples keep their exact values (no gamma or
 * sRGB conversion is applied). Strict: a CRC error in any chunk, data left over after the image,
 * and libpng's "benign" errors fail; ancillary chunks (text, color management) are skipped
 * unread but CRC-checked. A file too short for the size its header claims (deflate packs at most
 * 1032 bytes into one) is refused by cic_png_open. */
int32_t cic_png_open(const uint8_t *bytes, size_t size, cic_png_decoder **decoder,
                     cic_image_info *info, cic_status *status);
int32_t cic_png_decode(cic_png_decoder *decoder, void *pixels, size_t pixels_size, cic_status *status);
void cic_png_close(cic_png_decoder *decoder);

/* JPEG: 8-bit grayscale (1 channel) or color (3 channels, RGB); CMYK is refused. Data that ends
 * before the image does, and every corruption libjpeg warns about (bad Huffman codes, premature
 * markers, extraneous bytes), is an error, not a gray bottom half as libjpeg would make it. A
 * baseline file too short for the size its header claims is refused by cic_jpeg_open. */
int32_t cic_jpeg_open(const uint8_t *bytes, size_t size, cic_jpeg_decoder **decoder,
                      cic_image_info *info, cic_status *status);
int32_t cic_jpeg_decode(cic_jpeg_decoder *decoder, void *pixels, size_t pixels_size, cic_status *status);
void cic_jpeg_close(cic_jpeg_decoder *decoder);

/* TIFF (first image of the file): 8- or 16-bit unsigned gray, gray+alpha, RGB or RGBA, in strips
 * or tiles, interleaved or planar, with any compression libtiff decodes. Any warning libtiff
 * gives while decoding pixel data (a strip without its end code, bytes discarded) is an error;
 * stored data too short for the header's size under its compression is refused by cic_tiff_open. */
int32_t cic_tiff_open(const uint8_t *bytes, size_t size, cic_tiff_decoder **decoder,
                      cic_image_info *info, cic_status *status);
int32_t cic_tiff_decode(cic_tiff_decoder *decoder, void *pixels, size_t pixels_size, cic_status *status);
void cic_tiff_close(cic_tiff_decoder *decoder);

/* Writes a PNG to `path` (created or truncated): packed rows of `channels` (1 or 3) samples of
 * `bit_depth` (8 or 16; 16-bit samples in host order), zlib `compression_level` 0...9, and
 * `fast_filter` as for cic_png_encode. A partly written file is left behind on failure; the
 * caller writes to a temporary path. */
int32_t cic_png_write(const char *path, const void *pixels, uint32_t width, uint32_t height,
                      int32_t channels, int32_t bit_depth, int32_t compression_level, int32_t fast_filter,
                      cic_status *status);

/* Encodes a PNG into memory: the same arguments as cic_png_write; `fast_filter` 1 uses the SUB row
 * filter alone instead of libpng's adaptive choice (previews: several times faster, a little
 * larger). On success *bytes (free with cic_free) holds *size bytes of a complete PNG file. */
int32_t cic_png_encode(const void *pixels, uint32_t width, uint32_t height, int32_t channels, int32_t bit_depth,
                       int32_t compression_level, int32_t fast_filter, uint8_t **bytes, size_t *size,
                       cic_status *status);
void cic_free(void *bytes);

/* Encodes 8-bit gray (1 channel) or RGB (3) packed rows as a baseline JPEG of `quality` 1...100,
 * into memory as cic_png_encode does (free *bytes with cic_free): a stream frame's color. */
int32_t cic_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int32_t channels, int32_t quality,
                        uint8_t **bytes, size_t *size, cic_status *status);

/* A photo with depth in HEIF (an iPhone's HEIC), through libheif (dlopen'ed on first use). Open
 * reads the structure; decode writes one image's packed 8-bit rows: CIC_HEIF_COLOR as RGB after
 * the file's own rotation and mirroring (irot, imir), CIC_HEIF_DEPTH and CIC_HEIF_MATTE as one
 * gray channel. The depth image's XMP (Apple's depthData properties) is copied out by
 * cic_heif_depth_xmp into a buffer of info.depth_xmp_size bytes. libheif reads the file in place:
 * as with the decoders above, `bytes` must stay valid and unchanged until cic_heif_close. */
typedef struct cic_heif_photo cic_heif_photo;
enum { CIC_HEIF_COLOR = 0, CIC_HEIF_DEPTH = 1, CIC_HEIF_MATTE = 2 };
typedef struct cic_heif_photo_info {
    uint32_t width, height;
    int32_t has_depth;
    uint32_t depth_width, depth_height;
    /* The depth representation libheif reads from the depth item (heif_depth_representation_info). */
    int32_t has_representation, representation_type, has_d_min, has_d_max;
    double d_min, d_max;
    size_t depth_xmp_size;
    uint32_t depth_xmp_id;
    int32_t has_matte;
    uint32_t matte_width, matte_height;
} cic_heif_photo_info;
int32_t cic_heif_open(const uint8_t *bytes, size_t size, cic_heif_photo **photo, cic_heif_photo_info *info,
                      cic_status *status);
int32_t cic_heif_depth_xmp(cic_heif_photo *photo, const cic_heif_photo_info *info, uint8_t *bytes, size_t size,
                           cic_status *status);
int32_t cic_heif_decode(cic_heif_photo *photo, int32_t which, uint8_t *pixels, size_t pixels_size, cic_status *status);
void cic_heif_close(cic_heif_photo *photo);

/* XMP (RDF/XML) through expat (dlopen'ed on first use): calls `property` once per value of every
 * top-level property of every rdf:Description, in document order: the namespace URI, the local
 * name, the value (NUL-terminated UTF-8), and the value's index in its rdf:Seq/Bag/Alt (0 for a
 * simple value; properties written as attributes of rdf:Description count as simple values).
 * Structured properties (nested resources) are skipped. A document type declaration, malformed
 * XML, a value over 64 KiB or more than 100000 values is an error. A nonzero return from
 * `property` stops the parse with that code. */
typedef int32_t (*cic_xmp_property)(void *context, const char *namespace_uri, const char *name, const char *value,
                                    int32_t index);
int32_t cic_xmp_parse(const uint8_t *bytes, size_t size, cic_xmp_property property, void *context, cic_status *status);

/* EXR depth maps, through OpenEXR's C core library, which is dlopen'ed on the first call (a missing
 * library is CIC_IO_ERROR naming its Debian package). cic_exr_open reads the header of the file's
 * one part: a scanline image no larger than `max_side` on a side (the library refuses larger headers
 * before allocating for them) with a half or float channel named `channel`, one sample per pixel;
 * tiled, deep and multi-part files, and a file without that channel (the message lists those it
 * has), are refused. info: the data window's size, 1 channel, bit_depth 16 (half) or 32 (float),
 * working_bytes the library's buffers for one chunk. cic_exr_decode writes the channel as float32
 * into `pixels` (width * height of them, row-major); other channels are skipped. */
typedef struct cic_exr_decoder cic_exr_decoder;
int32_t cic_exr_open(const uint8_t *bytes, size_t size, const char *channel, int32_t max_side, cic_exr_decoder **decoder,
                     cic_image_info *info, cic_status *status);
int32_t cic_exr_decode(cic_exr_decoder *decoder, float *pixels, size_t pixel_count, cic_status *status);
void cic_exr_close(cic_exr_decoder *decoder);

/* zlib's CRC-32 (PNG chunk checksums), continued from `crc` (0 to start). */
uint32_t cic_crc32(uint32_t crc, const uint8_t *bytes, size_t size);

/* zstd, for depth frames of live streams (libzstd is dlopen'ed on first use; a missing library is
 * CIC_IO_ERROR naming its Debian package). cic_zstd_bound is the most cic_zstd_compress can write
 * for `size` bytes (0 on failure). cic_zstd_compress writes one frame, with its content size, and
 * returns its length (0 on failure). cic_zstd_decompress takes exactly one frame whose content is
 * exactly out_size bytes: any other size, a truncated or corrupt frame, or bytes after it are
 * CIC_BAD_INPUT, found before anything is written past what the frame holds. */
size_t cic_zstd_bound(size_t size, cic_status *status);
size_t cic_zstd_compress(const void *bytes, size_t size, void *out, size_t out_size, int32_t level, cic_status *status);
int32_t cic_zstd_decompress(const void *bytes, size_t size, void *out, size_t out_size, cic_status *status);

#ifdef __cplusplus
}
#endif

#endif
