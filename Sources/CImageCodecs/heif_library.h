/*
 * libheif, opened with dlopen on the first HEIC photo (library_loader.h says why). heif_photo.c
 * includes this header instead of <libheif/heif.h> alone and calls libheif as usual.
 */
#ifndef CIC_HEIF_LIBRARY_H
#define CIC_HEIF_LIBRARY_H

#include <libheif/heif.h>
#include "library_loader.h"

#define CIC_HEIF_FUNCTIONS(X) \
    X(heif_context_alloc) X(heif_context_free) X(heif_context_read_from_memory_without_copy) \
    X(heif_context_set_maximum_image_size_limit) X(heif_context_get_primary_image_handle) \
    X(heif_image_handle_release) X(heif_image_handle_get_width) X(heif_image_handle_get_height) \
    X(heif_image_handle_get_number_of_depth_images) X(heif_image_handle_get_list_of_depth_image_IDs) \
    X(heif_image_handle_get_depth_image_handle) X(heif_image_handle_get_depth_image_representation_info) \
    X(heif_depth_representation_info_free) \
    X(heif_image_handle_get_number_of_auxiliary_images) X(heif_image_handle_get_list_of_auxiliary_image_IDs) \
    X(heif_image_handle_get_auxiliary_image_handle) X(heif_image_handle_get_auxiliary_type) \
    X(heif_image_handle_free_auxiliary_types) \
    X(heif_image_handle_get_number_of_metadata_blocks) X(heif_image_handle_get_list_of_metadata_block_IDs) \
    X(heif_image_handle_get_metadata_type) X(heif_image_handle_get_metadata_content_type) \
    X(heif_image_handle_get_metadata_size) X(heif_image_handle_get_metadata) \
    X(heif_decode_image) X(heif_image_release) X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) X(heif_image_get_height) X(heif_image_get_bits_per_pixel_range)

typedef struct cic_heif_functions {
    CIC_HEIF_FUNCTIONS(CIC_FUNCTION_FIELD)
} cic_heif_functions;

extern cic_heif_functions cic_heif;

/* Loads libheif once per process and fills cic_heif: CIC_OK, or CIC_IO_ERROR naming the library,
   on this call and every later one. Call it before any libheif function. */
int32_t cic_heif_load(cic_status *status);

#define heif_context_alloc cic_heif.heif_context_alloc
#define heif_context_free cic_heif.heif_context_free
#define heif_context_read_from_memory_without_copy cic_heif.heif_context_read_from_memory_without_copy
#define heif_context_set_maximum_image_size_limit cic_heif.heif_context_set_maximum_image_size_limit
#define heif_context_get_primary_image_handle cic_heif.heif_context_get_primary_image_handle
#define heif_image_handle_release cic_heif.heif_image_handle_release
#define heif_image_handle_get_width cic_heif.heif_image_handle_get_width
#define heif_image_handle_get_height cic_heif.heif_image_handle_get_height
#define heif_image_handle_get_number_of_depth_images cic_heif.heif_image_handle_get_number_of_depth_images
#define heif_image_handle_get_list_of_depth_image_IDs cic_heif.heif_image_handle_get_list_of_depth_image_IDs
#define heif_image_handle_get_depth_image_handle cic_heif.heif_image_handle_get_depth_image_handle
#define heif_image_handle_get_depth_image_representation_info cic_heif.heif_image_handle_get_depth_image_representation_info
#define heif_depth_representation_info_free cic_heif.heif_depth_representation_info_free
#define heif_image_handle_get_number_of_auxiliary_images cic_heif.heif_image_handle_get_number_of_auxiliary_images
#define heif_image_handle_get_list_of_auxiliary_image_IDs cic_heif.heif_image_handle_get_list_of_auxiliary_image_IDs
#define heif_image_handle_get_auxiliary_image_handle cic_heif.heif_image_handle_get_auxiliary_image_handle
#define heif_image_handle_get_auxiliary_type cic_heif.heif_image_handle_get_auxiliary_type
#define heif_image_handle_free_auxiliary_types cic_heif.heif_image_handle_free_auxiliary_types
#define heif_image_handle_get_number_of_metadata_blocks cic_heif.heif_image_handle_get_number_of_metadata_blocks
#define heif_image_handle_get_list_of_metadata_block_IDs cic_heif.heif_image_handle_get_list_of_metadata_block_IDs
#define heif_image_handle_get_metadata_type cic_heif.heif_image_handle_get_metadata_type
#define heif_image_handle_get_metadata_content_type cic_heif.heif_image_handle_get_metadata_content_type
#define heif_image_handle_get_metadata_size cic_heif.heif_image_handle_get_metadata_size
#define heif_image_handle_get_metadata cic_heif.heif_image_handle_get_metadata
#define heif_decode_image cic_heif.heif_decode_image
#define heif_image_release cic_heif.heif_image_release
#define heif_image_get_plane_readonly cic_heif.heif_image_get_plane_readonly
#define heif_image_get_width cic_heif.heif_image_get_width
#define heif_image_get_height cic_heif.heif_image_get_height
#define heif_image_get_bits_per_pixel_range cic_heif.heif_image_get_bits_per_pixel_range

#endif
