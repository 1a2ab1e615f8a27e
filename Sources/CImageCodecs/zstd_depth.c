#include <string.h>
#include "cimagecodecs.h"
#include "zstd_library.h"

size_t cic_zstd_bound(size_t size, cic_status *status) {
    if (cic_zstd_load(status) != CIC_OK) return 0;
    cs_succeed(status);
    return ZSTD_compressBound(size);
}

size_t cic_zstd_compress(const void *bytes, size_t size, void *out, size_t out_size, int32_t level, cic_status *status) {
    if (cic_zstd_load(status) != CIC_OK) return 0;
    size_t written = ZSTD_compress(out, out_size, bytes, size, level);
    if (ZSTD_isError(written)) {
        cs_fail(status, CIC_IO_ERROR, "zstd could not compress: %s", ZSTD_getErrorName(written));
        return 0;
    }
    cs_succeed(status);
    return written;
}

int32_t cic_zstd_decompress(const void *bytes, size_t size, void *out, size_t out_size, cic_status *status) {
    if (cic_zstd_load(status) != CIC_OK) return status->code;
    /* One frame holding exactly out_size bytes, and nothing after it: the size is checked from the
       frame header before a byte is decoded, so a frame that claims more is refused, not truncated. */
    unsigned long long content = ZSTD_getFrameContentSize(bytes, size);
    if (content == ZSTD_CONTENTSIZE_ERROR) return cs_fail(status, CIC_BAD_INPUT, "not a zstd frame");
    if (content == ZSTD_CONTENTSIZE_UNKNOWN) return cs_fail(status, CIC_BAD_INPUT, "a zstd frame without its content size");
    if (content != out_size) {
        return cs_fail(status, CIC_BAD_INPUT, "a zstd frame of %llu bytes, where the image needs %zu", content, out_size);
    }
    size_t frame = ZSTD_findFrameCompressedSize(bytes, size);
    if (ZSTD_isError(frame)) return cs_fail(status, CIC_BAD_INPUT, "a truncated zstd frame (%s)", ZSTD_getErrorName(frame));
    if (frame != size) return cs_fail(status, CIC_BAD_INPUT, "%zu bytes after the zstd frame", size - frame);
    size_t written = ZSTD_decompress(out, out_size, bytes, size);
    if (ZSTD_isError(written)) return cs_fail(status, CIC_BAD_INPUT, "a corrupt zstd frame (%s)", ZSTD_getErrorName(written));
    if (written != out_size) return cs_fail(status, CIC_BAD_INPUT, "a zstd frame of %zu bytes, where the image needs %zu", written, out_size);
    cs_succeed(status);
    return CIC_OK;
}
