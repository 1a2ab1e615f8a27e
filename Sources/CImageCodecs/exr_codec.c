#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exr_library.h"

struct cic_exr_decoder {
    const uint8_t *bytes;
    size_t size;
    exr_context_t context;
    exr_attr_box2i_t window;
    uint32_t width;
    uint32_t height;
    /* A copy: the caller's string need only live through cic_exr_open. */
    char channel[256];
};

/* The file is in memory: reads are copies, and a read past the end is short, which the library
   reports as a truncated file. */
static int64_t read_memory(exr_const_context_t context, void *user_data, void *buffer, uint64_t size, uint64_t offset,
                           exr_stream_error_func_ptr_t error) {
    (void)context;
    (void)error;
    const struct cic_exr_decoder *decoder = user_data;
    if (offset >= decoder->size) return 0;
    uint64_t available = decoder->size - offset;
    uint64_t count = size < available ? size : available;
    memcpy(buffer, decoder->bytes + offset, count);
    return (int64_t)count;
}

static int64_t memory_size(exr_const_context_t context, void *user_data) {
    (void)context;
    return (int64_t)((const struct cic_exr_decoder *)user_data)->size;
}

static const char *pixel_type_name(exr_pixel_type_t type) {
    return type == EXR_PIXEL_HALF ? "half" : type == EXR_PIXEL_FLOAT ? "float" : "uint";
}

/* "R (float), G (half)": the channels a file has, for the message that says the wanted one is missing. */
static void list_channels(const exr_attr_chlist_t *channels, char *out, size_t capacity) {
    out[0] = 0;
    for (int i = 0; i < channels->num_channels; i++) {
        size_t used = strlen(out);
        snprintf(out + used, capacity - used, "%s%.*s (%s)", i ? ", " : "", (int)channels->entries[i].name.length,
                 channels->entries[i].name.str, pixel_type_name(channels->entries[i].pixel_type));
    }
}

int32_t cic_exr_open(const uint8_t *bytes, size_t size, const char *channel, int32_t max_side, cic_exr_decoder **decoder_out,
                     cic_image_info *info, cic_status *status) {
    *decoder_out = NULL;
    memset(info, 0, sizeof *info);
    if (cic_exr_load(status) != CIC_OK) return status->code;
    cic_exr_forget_message();
    struct cic_exr_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    decoder->bytes = bytes;
    decoder->size = size;
    *decoder_out = decoder;
    if (strlen(channel) >= sizeof decoder->channel) return cic_fail(status, CIC_BAD_INPUT, "a channel name of %zu bytes", strlen(channel));
    strcpy(decoder->channel, channel);

    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = cic_exr_keep_message;
    init.user_data = decoder;
    init.read_fn = read_memory;
    init.size_fn = memory_size;
    /* The library refuses larger headers before it allocates for them. */
    init.max_image_width = max_side;
    init.max_image_height = max_side;
    init.max_tile_width = max_side;
    init.max_tile_height = max_side;
    /* A damaged chunk table is an error, not a search through the file for chunks. */
    init.flags = EXR_CONTEXT_FLAG_DISABLE_CHUNK_RECONSTRUCTION;
    exr_result_t result = exr_start_read(&decoder->context, "memory", &init);
    if (result != EXR_ERR_SUCCESS) return cic_exr_fail(status, result, "not a readable EXR file");

    int parts = 0;
    exr_storage_t storage;
    if ((result = exr_get_count(decoder->context, &parts)) != EXR_ERR_SUCCESS) return cic_exr_fail(status, result, "no parts");
    if (parts != 1) return cic_fail(status, CIC_BAD_INPUT, "a multi-part EXR of %d parts; a depth map is one image", parts);
    if ((result = exr_get_storage(decoder->context, 0, &storage)) != EXR_ERR_SUCCESS) return cic_exr_fail(status, result, "no storage type");
    if (storage != EXR_STORAGE_SCANLINE) {
        return cic_fail(status, CIC_BAD_INPUT, "a %s EXR; cloudgen reads scanline EXR files only",
                        storage == EXR_STORAGE_TILED ? "tiled" : "deep");
    }
    if ((result = exr_get_data_window(decoder->context, 0, &decoder->window)) != EXR_ERR_SUCCESS) {
        return cic_exr_fail(status, result, "no data window");
    }
    int64_t width = (int64_t)decoder->window.max.x - decoder->window.min.x + 1;
    int64_t height = (int64_t)decoder->window.max.y - decoder->window.min.y + 1;
    if (width < 1 || height < 1 || width > max_side || height > max_side) {
        return cic_fail(status, CIC_BAD_INPUT, "data window of %lldx%lld pixels is outside 1...%d on a side",
                        (long long)width, (long long)height, max_side);
    }
    decoder->width = (uint32_t)width;
    decoder->height = (uint32_t)height;

    const exr_attr_chlist_t *channels = NULL;
    if ((result = exr_get_channels(decoder->context, 0, &channels)) != EXR_ERR_SUCCESS) return cic_exr_fail(status, result, "no channel list");
    const exr_attr_chlist_entry_t *wanted = NULL;
    int bytes_per_pixel = 0;
    for (int i = 0; i < channels->num_channels; i++) {
        const exr_attr_chlist_entry_t *entry = &channels->entries[i];
        bytes_per_pixel += entry->pixel_type == EXR_PIXEL_HALF ? 2 : 4;
        if ((size_t)entry->name.length == strlen(channel) && memcmp(entry->name.str, channel, strlen(channel)) == 0) wanted = entry;
    }
    if (!wanted) {
        char names[160];
        list_channels(channels, names, sizeof names);
        return cic_fail(status, CIC_BAD_INPUT, "no channel %s (the file has %s)", channel, channels->num_channels ? names : "none");
    }
    if (wanted->pixel_type == EXR_PIXEL_UINT) return cic_fail(status, CIC_BAD_INPUT, "channel %s holds uint samples, not half or float depth", channel);
    if (wanted->x_sampling != 1 || wanted->y_sampling != 1) {
        return cic_fail(status, CIC_BAD_INPUT, "channel %s is subsampled (%dx%d); depth has a sample per pixel", channel,
                        wanted->x_sampling, wanted->y_sampling);
    }
    int32_t lines = 0;
    if ((result = exr_get_scanlines_per_chunk(decoder->context, 0, &lines)) != EXR_ERR_SUCCESS) return cic_exr_fail(status, result, "no chunk size");
    if (lines < 1) return cic_fail(status, CIC_BAD_INPUT, "%d lines per chunk", lines);
    /* Every chunk's place and size is checked against the file now, so that a truncated file or a
       lying chunk table fails before the caller allocates the whole map. */
    for (int64_t y = decoder->window.min.y; y <= decoder->window.max.y; y += lines) {
        exr_chunk_info_t chunk;
        if ((result = exr_read_scanline_chunk_info(decoder->context, 0, (int)y, &chunk)) != EXR_ERR_SUCCESS) {
            return cic_exr_fail(status, result, "bad chunk table");
        }
    }
    info->width = decoder->width;
    info->height = decoder->height;
    info->channels = 1;
    info->bit_depth = wanted->pixel_type == EXR_PIXEL_HALF ? 16 : 32;
    /* One chunk at a time: its stored, decompressed and scratch copies of every channel. */
    info->working_bytes = 3 * (uint64_t)lines * (uint64_t)width * (uint64_t)bytes_per_pixel;
    return CIC_OK;
}

int32_t cic_exr_decode(cic_exr_decoder *decoder, float *pixels, size_t pixel_count, cic_status *status) {
    cic_succeed(status);
    cic_exr_forget_message();
    const size_t width = decoder->width;
    if (pixel_count != width * decoder->height) {
        return cic_fail(status, CIC_BAD_INPUT, "output holds %zu pixels, the image %zu", pixel_count, width * decoder->height);
    }
    int32_t lines = 0;
    exr_result_t result = exr_get_scanlines_per_chunk(decoder->context, 0, &lines);
    if (result != EXR_ERR_SUCCESS) return cic_exr_fail(status, result, "no chunk size");
    exr_decode_pipeline_t pipeline = EXR_DECODE_PIPELINE_INITIALIZER;
    int started = 0;
    for (int64_t y = decoder->window.min.y; y <= decoder->window.max.y; y += lines) {
        exr_chunk_info_t chunk;
        if ((result = exr_read_scanline_chunk_info(decoder->context, 0, (int)y, &chunk)) != EXR_ERR_SUCCESS) {
            cic_exr_fail(status, result, "bad chunk");
            break;
        }
        int64_t row = (int64_t)chunk.start_y - decoder->window.min.y;
        if (row < 0 || chunk.height < 1 || row + chunk.height > (int64_t)decoder->height || (size_t)chunk.width != width) {
            cic_fail(status, CIC_BAD_INPUT, "chunk at line %lld lies outside the data window", (long long)y);
            break;
        }
        result = started ? exr_decoding_update(decoder->context, 0, &chunk, &pipeline)
                         : exr_decoding_initialize(decoder->context, 0, &chunk, &pipeline);
        if (result != EXR_ERR_SUCCESS) {
            cic_exr_fail(status, result, "cannot decode a chunk");
            break;
        }
        /* Only the depth channel is written out, converted to float; the others are skipped. */
        for (int c = 0; c < pipeline.channel_count; c++) {
            exr_coding_channel_info_t *channel = &pipeline.channels[c];
            if (strcmp(channel->channel_name, decoder->channel) == 0) {
                channel->decode_to_ptr = (uint8_t *)(pixels + (size_t)row * width);
                channel->user_pixel_stride = sizeof(float);
                channel->user_line_stride = (int32_t)(width * sizeof(float));
                channel->user_bytes_per_element = sizeof(float);
                channel->user_data_type = EXR_PIXEL_FLOAT;
            } else {
                channel->decode_to_ptr = NULL;
            }
        }
        if (!started) {
            started = 1;
            if ((result = exr_decoding_choose_default_routines(decoder->context, 0, &pipeline)) != EXR_ERR_SUCCESS) {
                cic_exr_fail(status, result, "cannot decode a chunk");
                break;
            }
        }
        if ((result = exr_decoding_run(decoder->context, 0, &pipeline)) != EXR_ERR_SUCCESS) {
            cic_exr_fail(status, result, "corrupt pixel data");
            break;
        }
    }
    if (started) exr_decoding_destroy(decoder->context, &pipeline);
    return status->code;
}

void cic_exr_close(cic_exr_decoder *decoder) {
    if (!decoder) return;
    if (decoder->context) exr_finish(&decoder->context);
    free(decoder);
}
