#include <stdlib.h>
#include <string.h>
#include "heif_library.h"

/* What an iPhone writes is 4032x3024 (12 MP) or 8064x6048 (48 MP); beyond this a file lies. */
#define CIC_HEIF_MAX_SIDE 16384
/* Apple's depthData XMP is about 6 KB; a packet this large is not one. */
#define CIC_HEIF_MAX_XMP (1u << 20)
/* The auxiliary type Apple gives the portrait effects matte (AVPortraitEffectsMatte). */
static const char matte_type[] = "urn:com:apple:photo:2018:aux:portraiteffectsmatte";

struct cic_heif_photo {
    struct heif_context *context;
    struct heif_image_handle *primary;
    struct heif_image_handle *depth; /* NULL without a depth image */
    struct heif_image_handle *matte; /* NULL without a matte */
};

static int32_t heif_failed(cic_status *status, struct heif_error error, const char *what) {
    return cic_fail(status, CIC_BAD_INPUT, "%s: %s", what, error.message ? error.message : "libheif failed");
}

static int32_t check_size(struct heif_image_handle *handle, const char *what, uint32_t *width, uint32_t *height,
                          cic_status *status) {
    int w = heif_image_handle_get_width(handle), h = heif_image_handle_get_height(handle);
    if (w <= 0 || h <= 0 || w > CIC_HEIF_MAX_SIDE || h > CIC_HEIF_MAX_SIDE) {
        return cic_fail(status, CIC_BAD_INPUT, "the %s is %dx%d, not a plausible image size", what, w, h);
    }
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return CIC_OK;
}

/* The depth item's XMP (Apple's depthData and apdi properties), if it has one. */
static void find_depth_xmp(struct heif_image_handle *depth, cic_heif_photo_info *info) {
    heif_item_id ids[16];
    int count = heif_image_handle_get_list_of_metadata_block_IDs(depth, "mime", ids, 16);
    for (int i = 0; i < count; i++) {
        const char *content = heif_image_handle_get_metadata_content_type(depth, ids[i]);
        if (content && strcmp(content, "application/rdf+xml") == 0) {
            info->depth_xmp_size = heif_image_handle_get_metadata_size(depth, ids[i]);
            info->depth_xmp_id = ids[i];
            return;
        }
    }
}

static void find_matte(cic_heif_photo *photo) {
    heif_item_id ids[16];
    int count = heif_image_handle_get_list_of_auxiliary_image_IDs(photo->primary, 0, ids, 16);
    for (int i = 0; i < count && !photo->matte; i++) {
        struct heif_image_handle *aux = NULL;
        if (heif_image_handle_get_auxiliary_image_handle(photo->primary, ids[i], &aux).code != heif_error_Ok) continue;
        const char *type = NULL;
        if (heif_image_handle_get_auxiliary_type(aux, &type).code == heif_error_Ok && type && strcmp(type, matte_type) == 0) {
            photo->matte = aux;
        } else {
            heif_image_handle_release(aux);
        }
        if (type) heif_image_handle_free_auxiliary_types(aux, &type);
    }
}

int32_t cic_heif_open(const uint8_t *bytes, size_t size, cic_heif_photo **out, cic_heif_photo_info *info,
                      cic_status *status) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    if (cic_heif_load(status) != CIC_OK) return status->code;
    cic_heif_photo *photo = calloc(1, sizeof *photo);
    if (!photo) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    *out = photo;
    photo->context = heif_context_alloc();
    if (!photo->context) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    heif_context_set_maximum_image_size_limit(photo->context, CIC_HEIF_MAX_SIDE);
    struct heif_error error = heif_context_read_from_memory_without_copy(photo->context, bytes, size, NULL);
    if (error.code != heif_error_Ok) return heif_failed(status, error, "not a readable HEIF file");
    error = heif_context_get_primary_image_handle(photo->context, &photo->primary);
    if (error.code != heif_error_Ok) return heif_failed(status, error, "no primary image");
    if (check_size(photo->primary, "primary image", &info->width, &info->height, status) != CIC_OK) return status->code;

    if (heif_image_handle_get_number_of_depth_images(photo->primary) > 0) {
        heif_item_id id;
        if (heif_image_handle_get_list_of_depth_image_IDs(photo->primary, &id, 1) == 1) {
            error = heif_image_handle_get_depth_image_handle(photo->primary, id, &photo->depth);
            if (error.code != heif_error_Ok) return heif_failed(status, error, "the depth image cannot be opened");
            if (check_size(photo->depth, "depth image", &info->depth_width, &info->depth_height, status) != CIC_OK) {
                return status->code;
            }
            const struct heif_depth_representation_info *representation = NULL;
            if (heif_image_handle_get_depth_image_representation_info(photo->primary, id, &representation) && representation) {
                info->has_representation = 1;
                info->representation_type = (int32_t)representation->depth_representation_type;
                info->has_d_min = representation->has_d_min;
                info->has_d_max = representation->has_d_max;
                info->d_min = representation->d_min;
                info->d_max = representation->d_max;
                heif_depth_representation_info_free(representation);
            }
            find_depth_xmp(photo->depth, info);
            if (info->depth_xmp_size > CIC_HEIF_MAX_XMP) {
                return cic_fail(status, CIC_BAD_INPUT, "the depth image's XMP is %zu bytes, more than an XMP packet holds",
                                info->depth_xmp_size);
            }
        }
    }
    find_matte(photo);
    if (photo->matte && check_size(photo->matte, "portrait matte", &info->matte_width, &info->matte_height, status) != CIC_OK) {
        return status->code;
    }
    info->has_depth = photo->depth != NULL;
    info->has_matte = photo->matte != NULL;
    cic_succeed(status);
    return CIC_OK;
}

int32_t cic_heif_depth_xmp(cic_heif_photo *photo, const cic_heif_photo_info *info, uint8_t *bytes, size_t size,
                           cic_status *status) {
    if (!photo->depth || info->depth_xmp_size == 0 || size != info->depth_xmp_size) {
        return cic_fail(status, CIC_BAD_INPUT, "no depth XMP of %zu bytes", size);
    }
    struct heif_error error = heif_image_handle_get_metadata(photo->depth, info->depth_xmp_id, bytes);
    if (error.code != heif_error_Ok) return heif_failed(status, error, "the depth image's XMP cannot be read");
    cic_succeed(status);
    return CIC_OK;
}

/* Copies plane rows of `row_bytes` into packed `pixels`. */
static int32_t copy_plane(const struct heif_image *image, enum heif_channel channel, uint32_t width, uint32_t height,
                          size_t row_bytes, uint8_t *pixels, size_t pixels_size, cic_status *status) {
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, channel, &stride);
    if (!plane || stride < 0 || (size_t)stride < row_bytes) return cic_fail(status, CIC_BAD_INPUT, "the decoded image has no plane");
    if (heif_image_get_width(image, channel) != (int)width || heif_image_get_height(image, channel) != (int)height) {
        return cic_fail(status, CIC_BAD_INPUT, "the decoded image is %dx%d, its header said %ux%u",
                        heif_image_get_width(image, channel), heif_image_get_height(image, channel), width, height);
    }
    if (pixels_size != row_bytes * height) return cic_fail(status, CIC_BAD_INPUT, "the pixel buffer does not fit the image");
    for (uint32_t y = 0; y < height; y++) memcpy(pixels + y * row_bytes, plane + (size_t)y * (size_t)stride, row_bytes);
    cic_succeed(status);
    return CIC_OK;
}

int32_t cic_heif_decode(cic_heif_photo *photo, int32_t which, uint8_t *pixels, size_t pixels_size, cic_status *status) {
    struct heif_image_handle *handle = which == CIC_HEIF_COLOR ? photo->primary : which == CIC_HEIF_DEPTH ? photo->depth : photo->matte;
    if (!handle) return cic_fail(status, CIC_BAD_INPUT, "the photo has no such image");
    int color = which == CIC_HEIF_COLOR;
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, color ? heif_colorspace_RGB : heif_colorspace_monochrome,
                                                color ? heif_chroma_interleaved_RGB : heif_chroma_monochrome, NULL);
    const char *what = color ? "the color image" : which == CIC_HEIF_DEPTH ? "the depth image" : "the portrait matte";
    if (error.code != heif_error_Ok) return heif_failed(status, error, what);
    enum heif_channel channel = color ? heif_channel_interleaved : heif_channel_Y;
    int bits = heif_image_get_bits_per_pixel_range(image, channel);
    uint32_t width = (uint32_t)heif_image_handle_get_width(handle), height = (uint32_t)heif_image_handle_get_height(handle);
    int32_t result;
    if (bits != 8) {
        result = cic_fail(status, CIC_BAD_INPUT, "%s has %d-bit samples; only 8-bit ones are read", what, bits);
    } else {
        result = copy_plane(image, channel, width, height, (size_t)width * (color ? 3 : 1), pixels, pixels_size, status);
    }
    heif_image_release(image);
    return result;
}

void cic_heif_close(cic_heif_photo *photo) {
    if (!photo) return;
    if (photo->matte) heif_image_handle_release(photo->matte);
    if (photo->depth) heif_image_handle_release(photo->depth);
    if (photo->primary) heif_image_handle_release(photo->primary);
    if (photo->context) heif_context_free(photo->context);
    free(photo);
}
