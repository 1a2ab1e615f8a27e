/*
 * cloudgen's C API over PCL's filters and normal estimation (the only header Swift sees; the C++
 * behind it is built by g++). Cloud files are read and written in Swift (module CloudFiles).
 *
 * Clouds cross this boundary as contiguous buffers, never one call per point:
 *   positions  float  x y z interleaved, 3 * count values (NaN marks an empty pixel of an organized cloud)
 *   colors     uint8  r g b interleaved, 3 * count values, or NULL
 *   normals    float  nx ny nz interleaved, 3 * count values, or NULL
 *   curvature  float  one value per point (PCL's surface variation), or NULL; only with normals
 * Every function reports failure through a cg_status (code + one-line message without the file
 * name, which the caller knows better) and never lets a C++ exception escape. PCL's console
 * output is silenced, so the shim never prints.
 */
#ifndef CLOUDGEN_SHIM_H
#define CLOUDGEN_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <cstatus.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function reports through cloudgen's one C status (Sources/CStatus/include/cstatus.h, on
   this build's include path too); CG_INTERNAL is the shim's own finer code. */
enum {
    CG_OK = CS_OK,
    /* The file or the cloud handed in is wrong (exit status 2 in the CLI). */
    CG_BAD_INPUT = CS_BAD_INPUT,
    /* The file system or PCL failed while doing something valid (exit status 3). */
    CG_IO_ERROR = CS_IO_ERROR,
    /* Out of memory or an unexpected C++ exception. */
    CG_INTERNAL = 16
};

#define CG_MESSAGE_CAPACITY CS_MESSAGE_CAPACITY

typedef cs_status cg_status;

/* A cloud handed to a filter. width * height == count; height == 1 for an unorganized cloud. */
typedef struct cg_cloud_view {
    const float *positions;
    const uint8_t *colors;
    const float *normals;
    const float *curvature;
    uint64_t count;
    uint32_t width;
    uint32_t height;
} cg_cloud_view;

/* ---- Filters ------------------------------------------------------------------------------------
 *
 * Each filter reads a cg_cloud_view in place: no call per point, and the only copy of the input
 * is the one PCL's own containers (or the neighbour index) need. Points with a non-finite
 * coordinate never survive a filter, as in PCL. `count` must equal width * height; the grid
 * itself is not used (the caller decides whether to keep it).
 *
 * Filters that select points write one byte per input point into `keep` (1 kept, 0 dropped; a
 * caller buffer of `count` bytes) and the number kept into *kept, so that the caller gathers its
 * own channels, or blanks the dropped pixels of an organized cloud. The voxel grid makes new
 * points: it returns a cg_filtered_cloud to copy out and free.
 *
 * Parameters PCL would mishandle silently are refused with CG_BAD_INPUT and a message that says
 * what would work (without naming the flag, which the caller knows).
 */

/* PCL's PassThrough on z: keeps min <= z <= max (max may be +inf). */
int32_t cg_filter_pass_through_z(const cg_cloud_view *cloud, float min, float max, uint8_t *keep, uint64_t *kept,
                                 cg_status *status);

/* PCL's CropBox without a transform: keeps min[a] <= p[a] <= max[a] on every axis. */
int32_t cg_filter_crop_box(const cg_cloud_view *cloud, const float min[3], const float max[3], uint8_t *keep,
                           uint64_t *kept, cg_status *status);

/*
 * StatisticalOutlierRemoval(mean_k = k, stddev_mul), with PCL's statistic, threshold and
 * comparison bit for bit: the mean distance of each finite point to its k nearest others, their
 * mean and (n - 1) standard deviation, and points above mean + stddev_mul * stddev dropped. The
 * neighbours come from an exact, parallel search instead of PCL's one-thread kd-tree queries.
 * Refused: k < 1, a non-finite stddev_mul, and k >= the number of finite points (PCL would read
 * past its neighbour lists).
 */
int32_t cg_filter_statistical_outliers(const cg_cloud_view *cloud, int32_t k, double stddev_mul, uint8_t *keep,
                                       uint64_t *kept, cg_status *status);

/*
 * RadiusOutlierRemoval: keeps the finite points with at least min_neighbours other points within
 * `radius` (inclusive, as PCL compares squared distances). Exact and parallel, like the
 * statistical filter. Refused: radius not finite or <= 0, min_neighbours < 0.
 */
int32_t cg_filter_radius_outliers(const cg_cloud_view *cloud, double radius, int32_t min_neighbours, uint8_t *keep,
                                  uint64_t *kept, cg_status *status);

/* Points a filter made (the voxel grid's centroids), waiting to be copied out. */
typedef struct cg_filtered_cloud cg_filtered_cloud;

/*
 * PCL's VoxelGrid with a cubic leaf: one point per occupied voxel at the centroid of its points,
 * colors averaged per channel (and truncated, as PCL does), normals averaged and renormalized
 * and curvature averaged when the view has them. Large clouds are split into slabs of whole voxel layers along z that
 * run in parallel; the voxels, and their order, are those of a single VoxelGrid over the cloud.
 * Refused: a leaf that is not finite or <= 0, one so small that the voxel count overflows PCL's
 * 32-bit index (PCL only warns and returns the cloud unfiltered), and one so small for the
 * cloud's distance from the origin that PCL's float voxel coordinates stop telling voxels apart.
 * On success *out is a handle to free with cg_filtered_cloud_free and *count its point count.
 */
int32_t cg_filter_voxel_grid(const cg_cloud_view *cloud, float leaf, cg_filtered_cloud **out, uint64_t *count,
                             cg_status *status);

/*
 * Copies a filter's points into caller buffers of 3 * count values (count as the filter reported).
 * colors / normals / curvature (count values) may be NULL to skip them, and must be NULL when the
 * input view had none.
 */
int32_t cg_filtered_cloud_copy(const cg_filtered_cloud *cloud, float *positions, uint8_t *colors, float *normals,
                               float *curvature, uint64_t count, cg_status *status);

void cg_filtered_cloud_free(cg_filtered_cloud *cloud);

/* ---- end of Filters ----------------------------------------------------------------------------- */

/* ---- Normals ---- */

/*
 * Estimates a unit normal for every point of `cloud` (its positions; colors and normals are not
 * read) into `normals` (3 * count floats, nx ny nz), each fitted to the surface within `radius`
 * metres of its point and turned toward `viewpoint` (x y z in the cloud's frame: the origin for a
 * camera-frame cloud, the camera's position for a world-frame one).
 *   Organized cloud (height > 1): PCL's integral-image estimation (AVERAGE_3D_GRADIENT) over a
 *   window per pixel that spans the radius on the surface and stops short of depth jumps (links
 *   between neighbouring valid pixels longer than 2 * radius); pixels no window serves (next to a
 *   jump, on a sliver of surface) get a least-squares plane through the grid points within the
 *   radius around them, sampled on a stride that keeps about (2 sqrt(max_neighbours) + 1)^2
 *   pixels. Cost does not grow with the radius.
 *   Unorganized cloud: a least-squares plane (PCL's computePointNormal) through the nearest
 *   max_neighbours points within the radius, the point itself included (Open3D's hybrid
 *   search), on every core. Cost per point grows with max_neighbours, not with the density.
 * A point gets NaN normals when it has no finite position, or when the points within the radius
 * (itself included) are fewer than 3 or lie on a line (a surface seen almost edge-on, whose image
 * rows lie farther apart than the radius).
 * `curvature` (count floats, or NULL to skip it) receives PCL's surface variation, the smallest
 * eigenvalue of the neighbourhood's covariance over their sum (0 on a plane, 1/3 at most), for
 * the same neighbourhood the normal was fitted to (on the organized path, the integral window's
 * covariance, which costs a second set of integral images); NaN where the normal is NaN.
 * Refused with CG_BAD_INPUT: radius not positive and finite, max_neighbours < 3, a viewpoint not
 * finite, width * height != count, more than 2^31 - 1 points. An empty cloud is no error.
 */
int32_t cg_estimate_normals(const cg_cloud_view *cloud, float radius, uint32_t max_neighbours,
                            const float viewpoint[3], float *normals, float *curvature, cg_status *status);

/* ---- Planes and outlines (cloudgen measure) ----------------------------------------------------
 *
 * A room is measured on one working set of points (the voxel-downsampled cloud) that many calls
 * read: it is copied once into PCL's container, a cg_plane_cloud, and the calls name the points
 * they look at by index into it (uint32_t, in the view's order).
 */
typedef struct cg_plane_cloud cg_plane_cloud;

/* Copies the view's positions (non-finite points included: give only finite indices to the calls). */
int32_t cg_plane_cloud_create(const cg_cloud_view *cloud, cg_plane_cloud **out, cg_status *status);
void cg_plane_cloud_free(cg_plane_cloud *cloud);

enum {
    /* Any plane (SACMODEL_PLANE). */
    CG_PLANE_ANY = 0,
    /* A plane whose normal lies within max_angle of `axis` (SACMODEL_PERPENDICULAR_PLANE: floors). */
    CG_PLANE_ACROSS_AXIS = 1,
    /* A plane that contains `axis` within max_angle (SACMODEL_PARALLEL_PLANE: walls). */
    CG_PLANE_ALONG_AXIS = 2
};

typedef struct cg_plane_search {
    int32_t orientation;     /* CG_PLANE_ANY, _ACROSS_AXIS or _ALONG_AXIS */
    float axis[3];           /* unit vector; unused for CG_PLANE_ANY */
    double max_angle;        /* radians */
    double distance;         /* inlier threshold, metres */
    int32_t max_iterations;
    double probability;      /* RANSAC's stopping confidence, e.g. 0.99 */
} cg_plane_search;

/*
 * PCL's SACSegmentation with RANSAC over the `count` points `indices` names, then its least-squares
 * refit on the inliers (setOptimizeCoefficients). PCL's random generator has a fixed seed, so the
 * same call gives the same plane. On success, coefficients holds a, b, c, d (unit normal, a x + b y
 * + c z + d = 0) and inliers (a caller buffer of `count` values) the first *inlier_count indices
 * of the points within `distance` of the plane RANSAC chose. *inlier_count is 0 when no plane was
 * found (fewer than 3 points, or none of the orientation asked).
 * Refused: distance or max_angle not finite and positive, max_iterations < 1, an index out of range.
 */
int32_t cg_segment_plane(const cg_plane_cloud *cloud, const uint32_t *indices, uint64_t count,
                         const cg_plane_search *search, double coefficients[4], uint32_t *inliers,
                         uint64_t *inlier_count, cg_status *status);

/*
 * The least-squares plane through the points `indices` names (repeats count again: a bootstrap
 * resample), as PCL's SampleConsensusModelPlane::optimizeModelCoefficients fits it (the smallest
 * eigenvector of their covariance), turned to point the same way as `reference` (a, b, c, d).
 * Refused: fewer than 4 points, an index out of range.
 */
int32_t cg_fit_plane(const cg_plane_cloud *cloud, const uint32_t *indices, uint64_t count, const double reference[4],
                     double coefficients[4], cg_status *status);

/*
 * PCL's ConcaveHull (alpha shape, through qhull) of points that lie in one plane, given as x y
 * pairs (`count` of them): the outline of the largest polygon, its vertices written as x y pairs
 * into `outline` (a caller buffer of 2 * capacity values) and their number into *vertex_count.
 * *vertex_count is 0 when there is no polygon (fewer than 3 points, all on a line); CG_BAD_INPUT
 * when the polygon has more than `capacity` vertices. Refused: alpha not finite and positive.
 */
int32_t cg_concave_hull_2d(const float *points, uint64_t count, double alpha, float *outline, uint64_t capacity,
                           uint64_t *vertex_count, cg_status *status);

#ifdef __cplusplus
}
#endif

#endif /* CLOUDGEN_SHIM_H */
