// cg_write_cloud. Binary PLY and binary / binary_compressed PCD are written here, straight from
// the caller's buffers: PCL's writers for them were the slowest stage of a capture (measured on a
// 303,570-point cloud: PLYWriter::writeBinary about 50 ms, emitting every field of every point
// through std::ostream; PCDWriter::writeBinaryCompressed about 55 ms, copying the compressed bytes
// one at a time into a std::ostringstream). The two ascii encodings still go through PCL's writers.
#include "shim_internal.hpp"

#include <pcl/PCLPointCloud2.h>
#include <pcl/exceptions.h>
#include <pcl/io/lzf.h>
#include <pcl/io/pcd_io.h>
#include <pcl/io/ply_io.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <string>
#include <unistd.h>

namespace {

using cloudgen::ShimError;

// PCL prints 8 significant digits by default, which cannot tell every pair of neighbouring floats
// apart; 9 is the smallest precision that reads back as the same float32. (PCL's PLY ascii writer
// ignores the precision it is given and prints 6.)
constexpr int kAsciiPrecision = 9;

// Binary records are packed into a buffer of about this size and written one buffer per call:
// memory stays bounded however large the cloud is, and the buffer stays in cache while it fills.
constexpr size_t kChunkBytes = size_t(1) << 20;

void checkCloud(const cg_cloud_view &cloud) {
    // PCL's PLY writers refuse an empty cloud and its PCD writers write one with a warning; an
    // empty cloud is refused for every format so that PLY and PCD behave alike.
    if (cloud.count == 0) throw ShimError(CG_BAD_INPUT, "the cloud has no points, so there is nothing to write");
    if (cloud.positions == nullptr) throw ShimError(CG_BAD_INPUT, "no positions given");
    if (cloud.height == 0 || uint64_t(cloud.width) * cloud.height != cloud.count)
        throw ShimError(CG_BAD_INPUT, "width x height does not equal the point count");
}

// A point is written only when all three coordinates are finite: cloudgen marks an empty pixel
// with NaN (PCL's writers test x alone; a point with only y or z not finite is no point either).
inline bool isFinitePoint(const float *p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

uint64_t countFinitePoints(const cg_cloud_view &cloud) {
    uint64_t n = 0;
    for (uint64_t i = 0; i < cloud.count; ++i) n += isFinitePoint(cloud.positions + 3 * i);
    return n;
}

// PCL's packed rgb: the float whose bits are 0x00RRGGBB (alpha 0 keeps it a finite float).
inline uint32_t packedColor(const uint8_t *c) {
    return uint32_t(c[0]) << 16 | uint32_t(c[1]) << 8 | uint32_t(c[2]);
}

std::string systemError(const char *what) { return std::string(what) + ": " + std::strerror(errno); }

// The destination (CloudWriter's temporary file), written with plain write(2) calls.
class OutputFile {
public:
    explicit OutputFile(const char *path) : fd_(::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) {
        if (fd_ < 0) throw ShimError(CG_IO_ERROR, systemError("cannot open the file for writing"));
    }
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;
    ~OutputFile() {
        if (fd_ >= 0) ::close(fd_);
    }

    void write(const void *data, size_t size) {
        const char *bytes = static_cast<const char *>(data);
        while (size > 0) {
            const ssize_t n = ::write(fd_, bytes, size);
            if (n < 0) {
                if (errno == EINTR) continue;
                throw ShimError(CG_IO_ERROR, systemError("cannot write the file"));
            }
            bytes += n;
            size -= size_t(n);
        }
    }

    // close(2) can report what the writes could not (a full disk on NFS, a quota).
    void close() {
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) throw ShimError(CG_IO_ERROR, systemError("cannot finish writing the file"));
    }

private:
    int fd_;
};

// An uninitialized byte buffer: every byte is written before it is read, so zero-filling it (as
// std::vector would) only costs time.
struct Buffer {
    std::unique_ptr<uint8_t[]> bytes;
    explicit Buffer(size_t size) : bytes(new uint8_t[size]) {}
    uint8_t *data() { return bytes.get(); }
};

// ---- Interleaved records (binary PLY, binary PCD, and the blob PCL's ascii writers take) ----

// How the optional channels are stored in a record: PCD (and PCL's blobs) keep the color as one
// packed float, PLY as uchar red green blue.
enum class ColorBytes { PackedFloat, Separate };

// Packs points [begin, end) into records of x y z [color] [nx ny nz curvature] at `out` (curvature
// 0 when the view has none, as in a default-constructed PCL point);
// returns the end of what was written. With SkipInvalid, points with a non-finite coordinate are
// left out. The template parameters take the branches out of the loop.
template <bool Colors, bool Normals, ColorBytes Layout, bool SkipInvalid>
uint8_t *packRecords(const cg_cloud_view &cloud, uint64_t begin, uint64_t end, uint8_t *out) {
    const float *positions = cloud.positions;
    const uint8_t *colors = cloud.colors;
    const float *normals = cloud.normals;
    const float *curvature = cloud.curvature;
    constexpr size_t colorBytes = Colors ? (Layout == ColorBytes::PackedFloat ? 4 : 3) : 0;
    for (uint64_t i = begin; i < end; ++i) {
        if constexpr (SkipInvalid) {
            if (!isFinitePoint(positions + 3 * i)) continue;
        }
        std::memcpy(out, positions + 3 * i, 3 * sizeof(float));
        if constexpr (Colors) {
            if constexpr (Layout == ColorBytes::PackedFloat) {
                const uint32_t packed = packedColor(colors + 3 * i);
                std::memcpy(out + 12, &packed, sizeof(packed));
            } else {
                std::memcpy(out + 12, colors + 3 * i, 3);
            }
        }
        if constexpr (Normals) {
            std::memcpy(out + 12 + colorBytes, normals + 3 * i, 3 * sizeof(float));
            const float c = curvature != nullptr ? curvature[i] : 0.0f;
            std::memcpy(out + 24 + colorBytes, &c, sizeof(float));
        }
        out += 12 + colorBytes + (Normals ? 16 : 0);
    }
    return out;
}

using PackFunction = uint8_t *(*)(const cg_cloud_view &, uint64_t, uint64_t, uint8_t *);

template <ColorBytes Layout, bool SkipInvalid>
PackFunction packerFor(const cg_cloud_view &cloud) {
    const bool colors = cloud.colors != nullptr, normals = cloud.normals != nullptr;
    if (colors && normals) return packRecords<true, true, Layout, SkipInvalid>;
    if (colors) return packRecords<true, false, Layout, SkipInvalid>;
    if (normals) return packRecords<false, true, Layout, SkipInvalid>;
    return packRecords<false, false, Layout, SkipInvalid>;
}

PackFunction packerFor(const cg_cloud_view &cloud, ColorBytes layout, bool skipInvalid) {
    if (layout == ColorBytes::PackedFloat)
        return skipInvalid ? packerFor<ColorBytes::PackedFloat, true>(cloud) : packerFor<ColorBytes::PackedFloat, false>(cloud);
    return skipInvalid ? packerFor<ColorBytes::Separate, true>(cloud) : packerFor<ColorBytes::Separate, false>(cloud);
}

uint32_t recordBytes(const cg_cloud_view &cloud, ColorBytes layout) {
    const uint32_t colorBytes = layout == ColorBytes::PackedFloat ? 4 : 3;
    return 12 + (cloud.colors ? colorBytes : 0) + (cloud.normals ? 16 : 0);
}

// Writes `header`, then every point's record (leaving out invalid ones with skipInvalid), one
// chunk buffer per write call; the header rides in the first chunk.
void writeRecords(OutputFile &file, const std::string &header, const cg_cloud_view &cloud, ColorBytes layout,
                  bool skipInvalid) {
    const PackFunction pack = packerFor(cloud, layout, skipInvalid);
    const uint64_t step = recordBytes(cloud, layout);
    const uint64_t pointsPerChunk = std::max<uint64_t>(1, kChunkBytes / step);
    Buffer buffer(header.size() + std::min(pointsPerChunk, cloud.count) * step);
    std::memcpy(buffer.data(), header.data(), header.size());
    uint8_t *start = buffer.data() + header.size();
    for (uint64_t begin = 0; begin < cloud.count; begin += pointsPerChunk) {
        const uint64_t end = std::min(cloud.count, begin + pointsPerChunk);
        const uint8_t *filled = pack(cloud, begin, end, start);
        file.write(buffer.data(), size_t(filled - buffer.data()));
        start = buffer.data();
    }
}

// ---- Binary PLY ----

// The header Docs/formats.md promises, with the property names PCL's own writer used (so readers
// see no change): colors as uchar red green blue, normals as nx ny nz plus PCL's curvature.
// No `element camera` (some readers choke on it) and none of PCL's informational obj_info lines;
// an organized cloud keeps the two that PCL's reader takes its grid from, and the range_grid
// element that maps each grid cell to its vertex (none for a cell without a point).
// The seven viewpoint numbers as text that reads back as the same doubles.
std::string viewpointText(const double *v) {
    char buffer[7 * 26];
    std::snprintf(buffer, sizeof(buffer), "%.17g %.17g %.17g %.17g %.17g %.17g %.17g", v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    return buffer;
}

std::string plyHeader(const cg_cloud_view &cloud, uint64_t vertices, bool organized) {
    std::string header = "ply\nformat binary_little_endian 1.0\n";
    if (cloud.viewpoint) header += "comment cloudgen viewpoint " + viewpointText(cloud.viewpoint) + "\n";
    if (organized) {
        header += "obj_info num_cols " + std::to_string(cloud.width) + "\n";
        header += "obj_info num_rows " + std::to_string(cloud.height) + "\n";
    }
    header += "element vertex " + std::to_string(vertices) + "\n";
    header += "property float x\nproperty float y\nproperty float z\n";
    if (cloud.colors) header += "property uchar red\nproperty uchar green\nproperty uchar blue\n";
    if (cloud.normals) header += "property float nx\nproperty float ny\nproperty float nz\nproperty float curvature\n";
    if (organized) {
        header += "element range_grid " + std::to_string(cloud.count) + "\n";
        header += "property list uchar int vertex_indices\n";
    }
    return header + "end_header\n";
}

// range_grid rows: a list of one int32 vertex index for a cell with a point, an empty list for
// one without.
void writeRangeGrid(OutputFile &file, const cg_cloud_view &cloud) {
    constexpr uint64_t cellsPerChunk = kChunkBytes / 5;
    Buffer buffer(std::min(cellsPerChunk, cloud.count) * 5);
    int32_t vertex = 0;
    for (uint64_t begin = 0; begin < cloud.count; begin += cellsPerChunk) {
        const uint64_t end = std::min(cloud.count, begin + cellsPerChunk);
        uint8_t *out = buffer.data();
        for (uint64_t i = begin; i < end; ++i) {
            if (isFinitePoint(cloud.positions + 3 * i)) {
                *out = 1;
                std::memcpy(out + 1, &vertex, sizeof(vertex));
                out += 5;
                ++vertex;
            } else {
                *out++ = 0;
            }
        }
        file.write(buffer.data(), size_t(out - buffer.data()));
    }
}

// `vertices`: the cloud's finite points, the only ones written (an organized cloud's range_grid
// keeps the place of the others).
void writePLYBinary(const char *path, const cg_cloud_view &cloud, uint64_t vertices) {
    const bool organized = cloud.height > 1;
    // range_grid stores vertex indices as int32.
    if (organized && vertices > uint64_t(std::numeric_limits<int32_t>::max()))
        throw ShimError(CG_BAD_INPUT, "the organized cloud has more points than PLY's range_grid can index");
    OutputFile file(path);
    writeRecords(file, plyHeader(cloud, vertices, organized), cloud, ColorBytes::Separate, vertices != cloud.count);
    if (organized) writeRangeGrid(file, cloud);
    file.close();
}

// ---- Binary and binary_compressed PCD ----

// The header PCL's PCDWriter writes for our fields (its binary and binary_compressed headers
// agree when records have no padding), so that the file is byte for byte what PCL wrote.
// `points`: the records that follow; an unorganized cloud is one row of them.
std::string pcdHeader(const cg_cloud_view &cloud, const char *encoding, uint64_t points) {
    const size_t fields = 3 + (cloud.colors ? 1 : 0) + (cloud.normals ? 4 : 0);
    std::string header = "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS x y z";
    if (cloud.colors) header += " rgb";
    if (cloud.normals) header += " normal_x normal_y normal_z curvature";
    header += "\nSIZE";
    for (size_t i = 0; i < fields; ++i) header += " 4";
    header += "\nTYPE";
    for (size_t i = 0; i < fields; ++i) header += " F";
    header += "\nCOUNT";
    for (size_t i = 0; i < fields; ++i) header += " 1";
    const uint64_t width = cloud.height > 1 ? cloud.width : points;
    header += "\nWIDTH " + std::to_string(width) + "\nHEIGHT " + std::to_string(cloud.height) +
              "\nVIEWPOINT " + (cloud.viewpoint ? viewpointText(cloud.viewpoint) : std::string("0 0 0 1 0 0 0")) +
              "\nPOINTS " + std::to_string(points) + "\nDATA " + encoding + "\n";
    return header;
}

// `points`: what is written, every point of an organized cloud, the finite ones otherwise.
void writePCDBinary(const char *path, const cg_cloud_view &cloud, uint64_t points) {
    OutputFile file(path);
    writeRecords(file, pcdHeader(cloud, "binary", points), cloud, ColorBytes::PackedFloat, points != cloud.count);
    file.close();
}

// binary_compressed: the fields one after the other (all x, then all y, ...; rgb packed, as in
// PCL's records), LZF-compressed by PCL's own lzfCompress in one piece, after the header and two
// little-endian uint32: the compressed and the uncompressed size.
void writePCDCompressed(const char *path, const cg_cloud_view &cloud, uint64_t points) {
    const uint64_t n = points;
    const bool skip = points != cloud.count;
    const uint64_t fields = 3 + (cloud.colors ? 1 : 0) + (cloud.normals ? 4 : 0);
    const uint64_t dataSize = n * fields * sizeof(float);
    if (dataSize > std::numeric_limits<uint32_t>::max())
        throw ShimError(CG_BAD_INPUT, "the cloud is more than 4 GiB of point data, more than PCD binary_compressed "
                                      "can store (PCD binary can)");

    // One field per plane, filled in a single pass over the points.
    Buffer planes(dataSize);
    float *x = reinterpret_cast<float *>(planes.data());
    float *y = x + n, *z = y + n, *next = z + n;
    uint32_t *rgb = nullptr;
    if (cloud.colors) {
        rgb = reinterpret_cast<uint32_t *>(next);
        next += n;
    }
    float *nx = next, *ny = nx + n, *nz = ny + n, *curvature = nz + n;
    // Point i of the cloud goes to slot k of every plane; with `skip`, non-finite points take none.
    for (uint64_t i = 0, k = 0; i < cloud.count; ++i) {
        const float *p = cloud.positions + 3 * i;
        if (skip && !isFinitePoint(p)) continue;
        x[k] = p[0];
        y[k] = p[1];
        z[k] = p[2];
        if (rgb) rgb[k] = packedColor(cloud.colors + 3 * i);
        if (cloud.normals) {
            nx[k] = cloud.normals[3 * i];
            ny[k] = cloud.normals[3 * i + 1];
            nz[k] = cloud.normals[3 * i + 2];
            curvature[k] = cloud.curvature != nullptr ? cloud.curvature[i] : 0.0f;
        }
        ++k;
    }

    // Header, sizes and compressed data share one buffer and go out in one write. LZF grows
    // incompressible data by at most one byte in 32 plus a few, so it only fails when that room
    // had to be cut to the 32-bit size; its output is the same whatever room it is given.
    const std::string header = pcdHeader(cloud, "binary_compressed", points);
    const uint64_t room = std::min<uint64_t>(dataSize + dataSize / 16 + 64, std::numeric_limits<uint32_t>::max());
    Buffer out(header.size() + 8 + room);
    uint8_t *sizes = out.data() + header.size();
    const uint32_t compressedSize = pcl::lzfCompress(planes.data(), uint32_t(dataSize), sizes + 8, uint32_t(room));
    if (compressedSize == 0)
        throw ShimError(CG_BAD_INPUT, "the point data does not compress below 4 GiB, the most PCD binary_compressed "
                                      "can store (PCD binary can)");
    const uint32_t uncompressedSize = uint32_t(dataSize);
    std::memcpy(out.data(), header.data(), header.size());
    std::memcpy(sizes, &compressedSize, 4);
    std::memcpy(sizes + 4, &uncompressedSize, 4);

    OutputFile file(path);
    file.write(out.data(), header.size() + 8 + compressedSize);
    file.close();
}

// ---- ascii, through PCL's writers ----

void appendFloatField(pcl::PCLPointCloud2 &blob, const char *name) {
    pcl::PCLPointField field;
    field.name = name;
    field.offset = blob.point_step;
    field.datatype = pcl::PCLPointField::FLOAT32;
    field.count = 1;
    blob.fields.push_back(field);
    blob.point_step += sizeof(float);
}

// An unorganized cloud's blob holds only its `points` finite points: PCL's PLY ascii writer would
// drop the others itself but still count them in `obj_info num_cols`, from which PCL's reader
// then makes phantom (0, 0, 0) points, and PCL's PCD writer would write them. An organized
// cloud's blob holds every point: PCD keeps the grid, and PCL's PLY writer leaves out the empty
// pixels itself, recording the grid in range_grid.
void buildBlob(const cg_cloud_view &cloud, cg_format format, uint64_t points, pcl::PCLPointCloud2 &blob) {
    const bool organized = cloud.height > 1;
    const uint64_t written = organized ? cloud.count : points;
    const bool skipInvalid = written != cloud.count;

    blob.width = organized ? cloud.width : uint32_t(written);
    blob.height = cloud.height;
    blob.is_bigendian = false;
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

    // PLYWriter indexes records with 32-bit unsigned arithmetic: past 4 GiB of point data it
    // would write garbage.
    if (format == CG_FORMAT_PLY_ASCII && written * blob.point_step > std::numeric_limits<uint32_t>::max())
        throw ShimError(CG_BAD_INPUT, "the cloud is more than 4 GiB of point data, more than PCL can write "
                                      "as PLY ascii (PLY binary can)");

    // PCL's writers only take a PCLPointCloud2, whose records interleave all fields of a point.
    blob.data.resize(size_t(written) * blob.point_step);
    packerFor(cloud, ColorBytes::PackedFloat, skipInvalid)(cloud, 0, cloud.count, blob.data.data());

    // An organized cloud in PLY: PCL's writer leaves out the points whose x is not finite and
    // records the rest in range_grid; a point with only y or z not finite is made to look the same.
    if (format == CG_FORMAT_PLY_ASCII && cloud.height > 1) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (uint64_t i = 0; i < cloud.count; ++i) {
            if (!isFinitePoint(cloud.positions + 3 * i)) std::memcpy(&blob.data[size_t(i) * blob.point_step], &nan, sizeof(nan));
        }
    }
}

void writeAscii(const char *path, cg_format format, const cg_cloud_view &cloud, uint64_t points) {
    pcl::PCLPointCloud2 blob;
    buildBlob(cloud, format, points, blob);
    // PCL keeps the viewpoint in floats; PLY ascii has no place for it (use_camera = false below).
    const double *v = cloud.viewpoint;
    const Eigen::Vector4f origin = v ? Eigen::Vector4f(float(v[0]), float(v[1]), float(v[2]), 0) : Eigen::Vector4f::Zero();
    const Eigen::Quaternionf orientation =
        v ? Eigen::Quaternionf(float(v[3]), float(v[4]), float(v[5]), float(v[6])) : Eigen::Quaternionf::Identity();
    int result;
    try {
        result = format == CG_FORMAT_PLY_ASCII
                     // use_camera = false: no `element camera` block, which some readers choke on.
                     ? pcl::PLYWriter().writeASCII(path, blob, origin, orientation, kAsciiPrecision, false)
                     : pcl::PCDWriter().writeASCII(path, blob, origin, orientation, kAsciiPrecision);
    } catch (const pcl::PCLException &error) {
        throw ShimError(CG_IO_ERROR, "PCL could not write the file: " + cloudgen::describe(error));
    }
    if (result != 0)
        throw ShimError(CG_IO_ERROR, "PCL could not write the file (writer returned " + std::to_string(result) + ")");
}

}  // namespace

extern "C" int32_t cg_write_cloud(const char *path, cg_format format, const cg_cloud_view *cloud,
                                  uint64_t *points_written, cg_status *status) {
    if (points_written != nullptr) *points_written = 0;
    return cloudgen::guarded(status, [&] {
        if (path == nullptr || cloud == nullptr) throw ShimError(CG_BAD_INPUT, "no path or no cloud given");
        checkCloud(*cloud);
        // Empty pixels (a non-finite coordinate) are never points: left out everywhere except an
        // organized PCD, which keeps its grid of NaN points (an organized PLY's range_grid keeps
        // their places instead). One pass counts them, so that headers say what follows.
        const bool organized = cloud->height > 1;
        const bool isPLY = format == CG_FORMAT_PLY_BINARY || format == CG_FORMAT_PLY_ASCII;
        const uint64_t points = organized && !isPLY ? cloud->count : countFinitePoints(*cloud);
        if (!organized && points == 0)
            throw ShimError(CG_BAD_INPUT, "the cloud has no point with finite coordinates, so there is nothing to write");
        switch (format) {
        case CG_FORMAT_PLY_BINARY: writePLYBinary(path, *cloud, points); break;
        case CG_FORMAT_PCD_BINARY: writePCDBinary(path, *cloud, points); break;
        case CG_FORMAT_PCD_BINARY_COMPRESSED: writePCDCompressed(path, *cloud, points); break;
        case CG_FORMAT_PLY_ASCII:
        case CG_FORMAT_PCD_ASCII: writeAscii(path, format, *cloud, points); break;
        default: throw ShimError(CG_BAD_INPUT, "unknown output format");
        }
        if (points_written != nullptr) *points_written = points;
    });
}
