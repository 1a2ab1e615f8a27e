#include "czlib.h"

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

struct czlib_inflater {
    z_stream stream;
};

czlib_inflater *czlib_inflater_open(void) {
    czlib_inflater *inflater = calloc(1, sizeof *inflater);
    if (!inflater) return NULL;
    /* Negative window bits: a raw stream, as zip stores it. */
    if (inflateInit2(&inflater->stream, -MAX_WBITS) != Z_OK) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

int32_t czlib_inflate(czlib_inflater *inflater, const uint8_t *input, size_t input_size, size_t *consumed,
                      uint8_t *output, size_t output_size, size_t *produced) {
    z_stream *s = &inflater->stream;
    /* zlib counts in uInt; the caller's chunks are far smaller, but never let a size wrap. */
    uInt in = input_size > UINT_MAX ? UINT_MAX : (uInt)input_size;
    uInt out = output_size > UINT_MAX ? UINT_MAX : (uInt)output_size;
    s->next_in = (Bytef *)input;
    s->avail_in = in;
    s->next_out = output;
    s->avail_out = out;
    int status = inflate(s, Z_NO_FLUSH);
    *consumed = in - s->avail_in;
    *produced = out - s->avail_out;
    switch (status) {
    case Z_STREAM_END:
        return CZ_END;
    case Z_OK:
    case Z_BUF_ERROR: /* no progress possible with what was given: the caller decides */
        return CZ_MORE;
    case Z_MEM_ERROR:
        return CZ_NO_MEMORY;
    default: /* Z_DATA_ERROR, Z_NEED_DICT (a preset dictionary has no place in zip), Z_STREAM_ERROR */
        return CZ_BAD_DATA;
    }
}

const char *czlib_message(const czlib_inflater *inflater) {
    return inflater->stream.msg ? inflater->stream.msg : "corrupt deflate data";
}

void czlib_inflater_close(czlib_inflater *inflater) {
    if (!inflater) return;
    inflateEnd(&inflater->stream);
    free(inflater);
}

uint32_t czlib_crc32(uint32_t crc, const uint8_t *bytes, size_t size) {
    /* crc32 takes a uInt length: feed a large buffer in pieces. */
    while (size > 0) {
        uInt piece = size > UINT_MAX ? UINT_MAX : (uInt)size;
        crc = (uint32_t)crc32(crc, bytes, piece);
        bytes += piece;
        size -= piece;
    }
    return crc;
}
