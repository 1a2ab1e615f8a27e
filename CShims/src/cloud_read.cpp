// cg_read_cloud / cg_cloud_get_info / cg_cloud_copy: PCL's readers -> PCLPointCloud2 -> caller buffers.
#include "shim_internal.hpp"

#include <pcl/PCLPointCloud2.h>
#include <pcl/common/io.h>
#include <pcl/exceptions.h>
#include <pcl/io/pcd_io.h>
#include <pcl/io/ply_io.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

struct cg_cloud {
    pcl::PCLPointCloud2 blob;
    std::string fieldNames;
    // Where the channels live in each record; null when the file lacks them.
    const pcl::PCLPointField *position[3] = {nullptr, nullptr, nullptr};
    const pcl::PCLPointField *packedColor = nullptr;
    const pcl::PCLPointField *colorChannel[3] = {nullptr, nullptr, nullptr};
    const pcl::PCLPointField *normal[3] = {nullptr, nullptr, nullptr};
    const pcl::PCLPointField *curvature = nullptr;  // only beside normals

    bool hasColors() const { return packedColor != nullptr || colorChannel[2] != nullptr; }
    bool hasNormals() const { return normal[2] != nullptr; }
    bool hasCurvature() const { return curvature != nullptr; }
};

namespace {

using cloudgen::ShimError;

const pcl::PCLPointField *findField(const pcl::PCLPointCloud2 &blob, const char *name) {
    for (const auto &field : blob.fields)
        if (field.name == name) return &field;
    return nullptr;
}

const pcl::PCLPointField *findField(const pcl::PCLPointCloud2 &blob, const char *name, const char *alias) {
    const pcl::PCLPointField *field = findField(blob, name);
    return field != nullptr ? field : findField(blob, alias);
}

// Finds all three fields of a channel or none: a lone normal_x is not a normal.
void findTriple(const pcl::PCLPointCloud2 &blob, const char *const names[3], const char *const aliases[3],
                const pcl::PCLPointField *out[3]) {
    for (int axis = 0; axis < 3; ++axis) {
        out[axis] = aliases ? findField(blob, names[axis], aliases[axis]) : findField(blob, names[axis]);
        if (out[axis] == nullptr || out[axis]->count < 1) {
            out[0] = out[1] = out[2] = nullptr;
            return;
        }
    }
}

// PCL trusts the file's header for width, height and field offsets (a PLY `element camera` may
// even set width x height after the data was sized). Everything the copy loops rely on is checked
// once here, so they can run without bounds checks.
void validate(cg_cloud &cloud) {
    const pcl::PCLPointCloud2 &blob = cloud.blob;
    const uint64_t count = uint64_t(blob.width) * blob.height;
    if (blob.point_step == 0 || blob.data.size() != count * blob.point_step)
        throw ShimError(CG_BAD_INPUT, "the point data does not match the header's width x height (" +
                                          std::to_string(blob.width) + " x " + std::to_string(blob.height) + ")");
    for (const auto &field : blob.fields) {
        const uint64_t size = pcl::getFieldSize(field.datatype);
        if (size == 0 && field.name != "_")
            throw ShimError(CG_BAD_INPUT, "field " + field.name + " has an unknown data type");
        if (uint64_t(field.offset) + size * std::max<uint32_t>(field.count, 1) > blob.point_step)
            throw ShimError(CG_BAD_INPUT, "field " + field.name + " lies outside the point record");
    }

    static const char *const xyz[3] = {"x", "y", "z"};
    findTriple(blob, xyz, nullptr, cloud.position);
    if (cloud.position[0] == nullptr) throw ShimError(CG_BAD_INPUT, "the file has no x y z fields");

    // PCL's PLY reader packs uchar red/green/blue into an "rgb" float (and renames it "rgba", a
    // uint32, when there is an alpha); PCD stores "rgb" as F or U, "rgba" as U.
    for (const char *name : {"rgb", "rgba"}) {
        const pcl::PCLPointField *field = findField(blob, name);
        if (field != nullptr && pcl::getFieldSize(field->datatype) == 4) {
            cloud.packedColor = field;
            break;
        }
    }
    static const char *const rgbNames[3] = {"red", "green", "blue"};
    if (cloud.packedColor == nullptr) findTriple(blob, rgbNames, nullptr, cloud.colorChannel);

    static const char *const normalNames[3] = {"normal_x", "normal_y", "normal_z"};
    static const char *const normalAliases[3] = {"nx", "ny", "nz"};
    findTriple(blob, normalNames, normalAliases, cloud.normal);
    if (cloud.hasNormals()) {
        const pcl::PCLPointField *curvature = findField(blob, "curvature");
        if (curvature != nullptr && curvature->count >= 1) cloud.curvature = curvature;
    }

    for (const auto &field : blob.fields) {
        if (field.name == "_") continue;  // PCD padding, not a field
        if (!cloud.fieldNames.empty()) cloud.fieldNames += ',';
        cloud.fieldNames += field.name;
    }
}

template <typename T>
T load(const uint8_t *record) {
    T value;
    std::memcpy(&value, record, sizeof(T));
    return value;
}

// Copies one scalar field of every record into dst[0], dst[stride], dst[2 * stride]... as float.
template <typename T>
void gatherAsFloat(const uint8_t *src, uint32_t step, uint64_t count, float *dst, size_t stride) {
    for (uint64_t i = 0; i < count; ++i, src += step) dst[stride * i] = static_cast<float>(load<T>(src));
}

void gatherAsFloat(const pcl::PCLPointCloud2 &blob, const pcl::PCLPointField &field, float *dst, size_t stride = 3) {
    const uint8_t *src = blob.data.data() + field.offset;
    const uint64_t n = uint64_t(blob.width) * blob.height;
    const uint32_t step = blob.point_step;
    switch (field.datatype) {
    case pcl::PCLPointField::BOOL:
    case pcl::PCLPointField::UINT8: return gatherAsFloat<uint8_t>(src, step, n, dst, stride);
    case pcl::PCLPointField::INT8: return gatherAsFloat<int8_t>(src, step, n, dst, stride);
    case pcl::PCLPointField::INT16: return gatherAsFloat<int16_t>(src, step, n, dst, stride);
    case pcl::PCLPointField::UINT16: return gatherAsFloat<uint16_t>(src, step, n, dst, stride);
    case pcl::PCLPointField::INT32: return gatherAsFloat<int32_t>(src, step, n, dst, stride);
    case pcl::PCLPointField::UINT32: return gatherAsFloat<uint32_t>(src, step, n, dst, stride);
    case pcl::PCLPointField::INT64: return gatherAsFloat<int64_t>(src, step, n, dst, stride);
    case pcl::PCLPointField::UINT64: return gatherAsFloat<uint64_t>(src, step, n, dst, stride);
    case pcl::PCLPointField::FLOAT32: return gatherAsFloat<float>(src, step, n, dst, stride);
    case pcl::PCLPointField::FLOAT64: return gatherAsFloat<double>(src, step, n, dst, stride);
    }
    throw ShimError(CG_BAD_INPUT, "field " + field.name + " has an unknown data type");
}

// Copies an x y z style triple into interleaved floats.
void copyTriple(const pcl::PCLPointCloud2 &blob, const pcl::PCLPointField *const fields[3], float *dst) {
    const bool packedFloats = fields[0]->datatype == pcl::PCLPointField::FLOAT32 &&
                              fields[1]->datatype == pcl::PCLPointField::FLOAT32 &&
                              fields[2]->datatype == pcl::PCLPointField::FLOAT32 &&
                              fields[1]->offset == fields[0]->offset + 4 && fields[2]->offset == fields[0]->offset + 8;
    if (packedFloats) {
        // The common case (every PCL-written file): 12 contiguous bytes per record.
        const uint8_t *src = blob.data.data() + fields[0]->offset;
        const uint64_t n = uint64_t(blob.width) * blob.height;
        for (uint64_t i = 0; i < n; ++i, src += blob.point_step) std::memcpy(dst + 3 * i, src, 3 * sizeof(float));
        return;
    }
    // float64 (Open3D's PLY), integer or scattered coordinates: one strided pass per axis.
    for (int axis = 0; axis < 3; ++axis) gatherAsFloat(blob, *fields[axis], dst + axis);
}

// A separate color channel of any numeric type as 8 bits: uint8 as is, uint16 by its high
// byte, floats as 0...1 intensities, other integers clamped.
template <typename T>
uint8_t toColorByte(T value) {
    if constexpr (std::is_same_v<T, uint8_t>) {
        return value;
    } else if constexpr (std::is_same_v<T, uint16_t>) {
        return uint8_t(value >> 8);
    } else if constexpr (std::is_floating_point_v<T>) {
        const T scaled = value * T(255) + T(0.5);
        return scaled >= T(255) ? 255 : scaled > T(0) ? uint8_t(scaled) : 0;  // NaN -> 0
    } else {
        return value >= T(255) ? 255 : value > T(0) ? uint8_t(value) : 0;
    }
}

template <typename T>
void gatherColor(const uint8_t *src, uint32_t step, uint64_t count, uint8_t *dst) {
    for (uint64_t i = 0; i < count; ++i, src += step) dst[3 * i] = toColorByte(load<T>(src));
}

void gatherColor(const pcl::PCLPointCloud2 &blob, const pcl::PCLPointField &field, uint8_t *dst) {
    const uint8_t *src = blob.data.data() + field.offset;
    const uint64_t n = uint64_t(blob.width) * blob.height;
    const uint32_t step = blob.point_step;
    switch (field.datatype) {
    case pcl::PCLPointField::BOOL:
    case pcl::PCLPointField::UINT8: return gatherColor<uint8_t>(src, step, n, dst);
    case pcl::PCLPointField::INT8: return gatherColor<int8_t>(src, step, n, dst);
    case pcl::PCLPointField::INT16: return gatherColor<int16_t>(src, step, n, dst);
    case pcl::PCLPointField::UINT16: return gatherColor<uint16_t>(src, step, n, dst);
    case pcl::PCLPointField::INT32: return gatherColor<int32_t>(src, step, n, dst);
    case pcl::PCLPointField::UINT32: return gatherColor<uint32_t>(src, step, n, dst);
    case pcl::PCLPointField::INT64: return gatherColor<int64_t>(src, step, n, dst);
    case pcl::PCLPointField::UINT64: return gatherColor<uint64_t>(src, step, n, dst);
    case pcl::PCLPointField::FLOAT32: return gatherColor<float>(src, step, n, dst);
    case pcl::PCLPointField::FLOAT64: return gatherColor<double>(src, step, n, dst);
    }
    throw ShimError(CG_BAD_INPUT, "field " + field.name + " has an unknown data type");
}

void copyColors(const cg_cloud &cloud, uint8_t *dst) {
    const pcl::PCLPointCloud2 &blob = cloud.blob;
    const uint64_t n = uint64_t(blob.width) * blob.height;
    if (cloud.packedColor != nullptr) {
        // Packed rgb / rgba: the low three bytes of the 32 bits are r g b whatever the declared
        // type (F, U or I); alpha, when there is one, is dropped.
        const uint8_t *src = blob.data.data() + cloud.packedColor->offset;
        for (uint64_t i = 0; i < n; ++i, src += blob.point_step) {
            const uint32_t packed = load<uint32_t>(src);
            dst[3 * i] = uint8_t(packed >> 16);
            dst[3 * i + 1] = uint8_t(packed >> 8);
            dst[3 * i + 2] = uint8_t(packed);
        }
        return;
    }
    for (int channel = 0; channel < 3; ++channel) gatherColor(blob, *cloud.colorChannel[channel], dst + channel);
}

}  // namespace

extern "C" int32_t cg_read_cloud(const char *path, int32_t is_ply, cg_cloud **out, cg_status *status) {
    if (out != nullptr) *out = nullptr;
    return cloudgen::guarded(status, [&] {
        if (path == nullptr || out == nullptr) throw ShimError(CG_BAD_INPUT, "no path given");
        auto cloud = std::make_unique<cg_cloud>();
        int result;
        try {
            result = is_ply ? pcl::PLYReader().read(path, cloud->blob) : pcl::PCDReader().read(path, cloud->blob);
        } catch (const std::bad_alloc &) {
            throw;
        } catch (const std::exception &error) {
            // PCL throws on files it cannot make sense of (its own exceptions, or std::out_of_range
            // from PCLPointCloud2::at): that is the file's fault, not the machine's.
            const auto *pclError = dynamic_cast<const pcl::PCLException *>(&error);
            throw ShimError(CG_BAD_INPUT, std::string("PCL could not parse the file: ") +
                                              (pclError ? cloudgen::describe(*pclError) : error.what()));
        }
        if (result < 0)
            throw ShimError(CG_BAD_INPUT, std::string("PCL's ") + (is_ply ? "PLY" : "PCD") +
                                              " reader could not parse the file (it returned " +
                                              std::to_string(result) + ")");
        validate(*cloud);
        *out = cloud.release();
    });
}

extern "C" int32_t cg_cloud_get_info(const cg_cloud *cloud, cg_cloud_info *info, cg_status *status) {
    return cloudgen::guarded(status, [&] {
        if (cloud == nullptr || info == nullptr) throw ShimError(CG_BAD_INPUT, "no cloud given");
        info->count = uint64_t(cloud->blob.width) * cloud->blob.height;
        info->width = cloud->blob.width;
        info->height = cloud->blob.height;
        info->is_organized = cloud->blob.height > 1;
        info->has_colors = cloud->hasColors();
        info->has_normals = cloud->hasNormals();
        info->has_curvature = cloud->hasCurvature();
        info->field_names = cloud->fieldNames.c_str();
    });
}

extern "C" int32_t cg_cloud_copy(const cg_cloud *cloud, float *positions, uint8_t *colors, float *normals,
                                 float *curvature, uint64_t count, cg_status *status) {
    return cloudgen::guarded(status, [&] {
        if (cloud == nullptr) throw ShimError(CG_BAD_INPUT, "no cloud given");
        if (count != uint64_t(cloud->blob.width) * cloud->blob.height)
            throw ShimError(CG_BAD_INPUT, "buffer size does not match the cloud's point count");
        if ((colors != nullptr && !cloud->hasColors()) || (normals != nullptr && !cloud->hasNormals()) ||
            (curvature != nullptr && !cloud->hasCurvature()))
            throw ShimError(CG_BAD_INPUT, "asked for colors, normals or curvature the file does not have");
        // The one copy on the read path: PCL's records interleave all fields in the file's types;
        // our clouds keep float positions, byte colors and float normals in separate buffers.
        if (positions != nullptr) copyTriple(cloud->blob, cloud->position, positions);
        if (colors != nullptr) copyColors(*cloud, colors);
        if (normals != nullptr) copyTriple(cloud->blob, cloud->normal, normals);
        if (curvature != nullptr) gatherAsFloat(cloud->blob, *cloud->curvature, curvature, 1);
    });
}

extern "C" void cg_cloud_free(cg_cloud *cloud) { delete cloud; }
