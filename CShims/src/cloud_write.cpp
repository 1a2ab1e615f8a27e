// cg_write_cloud: caller buffers -> one PCLPointCloud2 blob -> PCL's PLY / PCD writers.
#include "shim_internal.hpp"

#include <pcl/PCLPointCloud2.h>
#include <pcl/exceptions.h>
#include <pcl/io/pcd_io.h>
#include <pcl/io/ply_io.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

using cloudgen::ShimError;

// PCL prints 8 significant digits by default, which cannot tell every pair of neighbouring floats
// apart; 9 is the smallest precision that reads back as the same float32. (PCL's PLY ascii writer
// ignores the precision it is given and prints 6.)
constexpr int kAsciiPrecision = 9;

void appendFloatField(pcl::PCLPointCloud2 &blob, const char *name) {
    pcl::PCLPointField field;
    field.name = name;
    field.offset = blob.point_step;
    field.datatype = pcl::PCLPointField::FLOAT32;
    field.count = 1;
    blob.fields.push_back(field);
    blob.point_step += sizeof(float);
}

// Interleaves the caller's buffers into the blob, one point record at a time. The template
// parameters take the optional channels' branches out of the loop.
template <bool Colors, bool Normals, bool SkipInvalid>
void interleave(const cg_cloud_view &cloud, uint32_t step, uint8_t *out) {
    const float *positions = cloud.positions;
    const uint8_t *colors = cloud.colors;
    const float *normals = cloud.normals;
    // curvature (after the normal) stays 0: the blob was zero-filled.
    constexpr size_t normalOffset = 12 + (Colors ? 4 : 0);
    for (uint64_t i = 0; i < cloud.count; ++i) {
        if constexpr (SkipInvalid) {
            if (!std::isfinite(positions[3 * i])) continue;
        }
        std::memcpy(out, positions + 3 * i, 3 * sizeof(float));
        if constexpr (Colors) {
            // PCL's packed rgb: the float whose bits are 0x00RRGGBB (alpha 0 keeps it a finite float).
            const uint8_t *c = colors + 3 * i;
            const uint32_t packed = uint32_t(c[0]) << 16 | uint32_t(c[1]) << 8 | uint32_t(c[2]);
            std::memcpy(out + 12, &packed, sizeof(packed));
        }
        if constexpr (Normals) {
            std::memcpy(out + normalOffset, normals + 3 * i, 3 * sizeof(float));
        }
        out += step;
    }
}

template <bool SkipInvalid>
void interleave(const cg_cloud_view &cloud, uint32_t step, uint8_t *out) {
    const bool colors = cloud.colors != nullptr, normals = cloud.normals != nullptr;
    if (colors && normals) interleave<true, true, SkipInvalid>(cloud, step, out);
    else if (colors) interleave<true, false, SkipInvalid>(cloud, step, out);
    else if (normals) interleave<false, true, SkipInvalid>(cloud, step, out);
    else interleave<false, false, SkipInvalid>(cloud, step, out);
}

void buildBlob(const cg_cloud_view &cloud, cg_format format, pcl::PCLPointCloud2 &blob) {
    // PCL's PLY writers refuse an empty cloud and its PCD writers write one with a warning; an
    // empty cloud is refused for every format so that PLY and PCD behave alike.
    if (cloud.count == 0) throw ShimError(CG_BAD_INPUT, "the cloud has no points, so there is nothing to write");
    if (cloud.positions == nullptr) throw ShimError(CG_BAD_INPUT, "no positions given");
    if (cloud.height == 0 || uint64_t(cloud.width) * cloud.height != cloud.count)
        throw ShimError(CG_BAD_INPUT, "width x height does not equal the point count");

    // PCL's PLY ascii writer leaves out points whose x is not finite but still writes the full
    // width as `obj_info num_cols`, from which PCL's reader then makes phantom (0, 0, 0) points.
    // For an unorganized cloud we leave them out ourselves, so the header counts what is there
    // (an organized cloud's range_grid accounts for them).
    const bool skipInvalid = format == CG_FORMAT_PLY_ASCII && cloud.height == 1;
    uint64_t written = cloud.count;
    if (skipInvalid) {
        written = 0;
        for (uint64_t i = 0; i < cloud.count; ++i) written += std::isfinite(cloud.positions[3 * i]);
        if (written == 0) throw ShimError(CG_BAD_INPUT, "the cloud has no finite points to write as PLY ascii");
    }

    blob.width = skipInvalid ? uint32_t(written) : cloud.width;
    blob.height = cloud.height;
    blob.is_bigendian = false;  // PLYWriter names the byte order in its header from this flag
    blob.point_step = 0;
    appendFloatField(blob, "x");
    appendFloatField(blob, "y");
    appendFloatField(blob, "z");
    if (cloud.colors != nullptr) appendFloatField(blob, "rgb");
    if (cloud.normals != nullptr) {
        // PLYWriter itself renames normal_* to nx ny nz in the PLY header, which Open3D reads.
        appendFloatField(blob, "normal_x");
        appendFloatField(blob, "normal_y");
        appendFloatField(blob, "normal_z");
        appendFloatField(blob, "curvature");
    }
    blob.row_step = blob.point_step * blob.width;

    // PLYWriter indexes records with 32-bit unsigned arithmetic, and binary_compressed stores
    // 32-bit sizes: past 4 GiB of point data both would write garbage.
    const bool limited = format != CG_FORMAT_PCD_ASCII && format != CG_FORMAT_PCD_BINARY;
    if (limited && written * blob.point_step > std::numeric_limits<uint32_t>::max())
        throw ShimError(CG_BAD_INPUT, "the cloud is more than 4 GiB of point data, more than PCL can write "
                                      "in this format (PCD binary can)");

    // The one copy on the write path: PCL's writers only take a PCLPointCloud2, whose records
    // interleave all fields of a point, while our channels live in separate buffers.
    blob.data.resize(size_t(written) * blob.point_step);
    if (skipInvalid) interleave<true>(cloud, blob.point_step, blob.data.data());
    else interleave<false>(cloud, blob.point_step, blob.data.data());
}

int writeBlob(const char *path, cg_format format, const pcl::PCLPointCloud2 &blob) {
    const Eigen::Vector4f origin = Eigen::Vector4f::Zero();
    const Eigen::Quaternionf orientation = Eigen::Quaternionf::Identity();
    switch (format) {
    case CG_FORMAT_PLY_BINARY:
        // use_camera = false: no `element camera` block, which some readers choke on.
        return pcl::PLYWriter().writeBinary(path, blob, origin, orientation, false);
    case CG_FORMAT_PLY_ASCII:
        return pcl::PLYWriter().writeASCII(path, blob, origin, orientation, kAsciiPrecision, false);
    case CG_FORMAT_PCD_ASCII:
        return pcl::PCDWriter().writeASCII(path, blob, origin, orientation, kAsciiPrecision);
    case CG_FORMAT_PCD_BINARY:
        return pcl::PCDWriter().writeBinary(path, blob, origin, orientation);
    case CG_FORMAT_PCD_BINARY_COMPRESSED:
        return pcl::PCDWriter().writeBinaryCompressed(path, blob, origin, orientation);
    }
    throw ShimError(CG_BAD_INPUT, "unknown output format");
}

}  // namespace

extern "C" int32_t cg_write_cloud(const char *path, cg_format format, const cg_cloud_view *cloud,
                                  cg_status *status) {
    return cloudgen::guarded(status, [&] {
        if (path == nullptr || cloud == nullptr) throw ShimError(CG_BAD_INPUT, "no path or no cloud given");
        pcl::PCLPointCloud2 blob;
        buildBlob(*cloud, format, blob);
        int result;
        try {
            result = writeBlob(path, format, blob);
        } catch (const pcl::PCLException &error) {
            throw ShimError(CG_IO_ERROR, "PCL could not write the file: " + cloudgen::describe(error));
        }
        if (result != 0)
            throw ShimError(CG_IO_ERROR, "PCL could not write the file (writer returned " +
                                             std::to_string(result) + ")");
    });
}
