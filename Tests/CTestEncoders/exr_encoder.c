#include <string.h>
#include "exr_library.h"

int32_t cic_exr_write(const char *path, const float *samples, uint32_t width, uint32_t height, const char *channel,
                      int32_t half, cic_status *status) {
    if (cic_exr_load(status) != CIC_OK) return status->code;
    cic_exr_forget_message();
    if (width < 1 || height < 1 || width > INT32_MAX || height > INT32_MAX) {
        return cic_fail(status, CIC_BAD_INPUT, "an EXR of %ux%u pixels", width, height);
    }
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = cic_exr_keep_message;
    exr_context_t context = NULL;
    int part = 0;
    int32_t lines = 0;
    /* The temporary file is renamed to `path` only when the whole file is written. */
    exr_result_t result = exr_start_write(&context, path, EXR_INTERMEDIATE_TEMP_FILE, &init);
    if (result != EXR_ERR_SUCCESS) return cic_exr_fail(status, result, "cannot create the file");
    if ((result = exr_add_part(context, NULL, EXR_STORAGE_SCANLINE, &part)) != EXR_ERR_SUCCESS ||
        (result = exr_initialize_required_attr_simple(context, part, (int32_t)width, (int32_t)height, EXR_COMPRESSION_ZIP)) != EXR_ERR_SUCCESS ||
        (result = exr_add_channel(context, part, channel, half ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LINEAR, 1, 1)) != EXR_ERR_SUCCESS ||
        (result = exr_write_header(context)) != EXR_ERR_SUCCESS ||
        (result = exr_get_scanlines_per_chunk(context, part, &lines)) != EXR_ERR_SUCCESS) {
        cic_exr_fail(status, result, "cannot write the header");
        exr_finish(&context);
        return status->code;
    }
    exr_encode_pipeline_t pipeline = EXR_ENCODE_PIPELINE_INITIALIZER;
    int started = 0;
    cic_succeed(status);
    for (uint32_t y = 0; y < height; y += (uint32_t)lines) {
        exr_chunk_info_t chunk;
        if ((result = exr_write_scanline_chunk_info(context, part, (int)y, &chunk)) != EXR_ERR_SUCCESS ||
            (result = started ? exr_encoding_update(context, part, &chunk, &pipeline)
                              : exr_encoding_initialize(context, part, &chunk, &pipeline)) != EXR_ERR_SUCCESS) {
            cic_exr_fail(status, result, "cannot write a chunk");
            break;
        }
        /* The samples are float; the library converts them to the channel's half when asked. */
        exr_coding_channel_info_t *out = &pipeline.channels[0];
        out->encode_from_ptr = (const uint8_t *)(samples + (size_t)y * width);
        out->user_pixel_stride = sizeof(float);
        out->user_line_stride = (int32_t)(width * sizeof(float));
        out->user_bytes_per_element = sizeof(float);
        out->user_data_type = EXR_PIXEL_FLOAT;
        if (!started) {
            started = 1;
            if ((result = exr_encoding_choose_default_routines(context, part, &pipeline)) != EXR_ERR_SUCCESS) {
                cic_exr_fail(status, result, "cannot write a chunk");
                break;
            }
        }
        if ((result = exr_encoding_run(context, part, &pipeline)) != EXR_ERR_SUCCESS) {
            cic_exr_fail(status, result, "cannot write a chunk");
            break;
        }
    }
    if (started) exr_encoding_destroy(context, &pipeline);
    result = exr_finish(&context);
    if (status->code == CIC_OK && result != EXR_ERR_SUCCESS) cic_exr_fail(status, result, "cannot finish the file");
    return status->code;
}
