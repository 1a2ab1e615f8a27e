/*
 * How cloudgen reaches the functions of cloudgen_shim.h. The shim is a shared library,
 * libcloudgen_shim.so, that cloudgen opens with dlopen on the first call (Docs/architecture.md,
 * "Start-up"): linking it, and PCL behind it, would load and initialise PCL's libraries in every
 * process, even `cloudgen --version`. Its one exported symbol of its own is CG_SHIM_TABLE_SYMBOL, a
 * cg_shim_entry_points with a pointer to each function, typed from its declaration.
 * (A header of its own: clang asks every pointer in a file to say whether it may be NULL once one
 * does, and only these do.)
 */
#ifndef CLOUDGEN_SHIM_ENTRY_POINTS_H
#define CLOUDGEN_SHIM_ENTRY_POINTS_H

#include "cloudgen_shim.h"

/* Every entry point, the one list of them: X(name) for the function cg_##name. */
#define CG_SHIM_ENTRY_POINTS(X) \
    X(filter_pass_through_z) X(filter_crop_box) X(filter_statistical_outliers) X(filter_radius_outliers) \
    X(filter_voxel_grid) X(filtered_cloud_copy) X(filtered_cloud_free) \
    X(estimate_normals) \
    X(plane_cloud_create) X(plane_cloud_free) X(segment_plane) X(fit_plane) X(concave_hull_2d)

/* Swift imports a _Nonnull function pointer as a plain function value, called without unwrapping. */
#ifdef __clang__
#define CG_NONNULL _Nonnull
#else
#define CG_NONNULL
#endif

#define CG_SHIM_ENTRY_FIELD(name) __typeof__(cg_##name) *CG_NONNULL name;
typedef struct cg_shim_entry_points {
    CG_SHIM_ENTRY_POINTS(CG_SHIM_ENTRY_FIELD)
} cg_shim_entry_points;
#undef CG_SHIM_ENTRY_FIELD

#define CG_SHIM_TABLE_SYMBOL "cg_shim_entry_points_table"

#endif /* CLOUDGEN_SHIM_ENTRY_POINTS_H */
