// cg_filter_voxel_grid and the cg_filtered_cloud it returns: PCL's VoxelGrid, checked first for
// the leaf sizes it mishandles, and run on slabs of the cloud in parallel.
#include "filter_support.hpp"

#include <pcl/filters/voxel_grid.h>
#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include "parallel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

// The points a filter made, in PCL's layout until the caller copies them out.
struct cg_filtered_cloud {
    virtual ~cg_filtered_cloud() = default;
    virtual uint64_t size() const = 0;
    virtual bool hasColors() const = 0;
    virtual bool hasNormals() const = 0;
    virtual bool hasCurvature() const = 0;
    virtual void copy(float *positions, uint8_t *colors, float *normals, float *curvature) const = 0;
};

namespace {

using cloudgen::ShimError;

// Clouds smaller than this are filtered in one piece: splitting costs more than it saves.
constexpr uint64_t kParallelMinimum = 65536;
// Slabs of a large cloud: three per core on a two-core machine, enough to even out the cores'
// shares on up to four (voxelGrid says why the number cannot follow the machine).
constexpr int kSlabs = 6;
// PCL computes voxel coordinates as floats, floor(x * (1 / leaf)), which stop being exact at 2^24.
constexpr double kExactVoxelCoordinates = 16777216.0;

template <typename PointT>
struct PCLCloud final : cg_filtered_cloud {
    pcl::PointCloud<PointT> points;
    static constexpr bool kColors = pcl::traits::has_color_v<PointT>;
    static constexpr bool kNormals = pcl::traits::has_normal_v<PointT>;

    uint64_t size() const override { return points.size(); }
    bool hasColors() const override { return kColors; }
    bool hasNormals() const override { return kNormals; }
    // PCL's normal point types all carry curvature; it is averaged like the other fields.
    bool hasCurvature() const override { return kNormals && withCurvature; }
    bool withCurvature = false;
    void copy(float *positions, uint8_t *colors, float *normals, float *curvature) const override {
        for (size_t i = 0; i < points.size(); ++i) {
            const PointT &p = points[i];
            if (positions != nullptr) {
                positions[3 * i] = p.x;
                positions[3 * i + 1] = p.y;
                positions[3 * i + 2] = p.z;
            }
            if constexpr (kColors) {
                if (colors != nullptr) {
                    colors[3 * i] = p.r;
                    colors[3 * i + 1] = p.g;
                    colors[3 * i + 2] = p.b;
                }
            }
            if constexpr (kNormals) {
                if (normals != nullptr) {
                    normals[3 * i] = p.normal_x;
                    normals[3 * i + 1] = p.normal_y;
                    normals[3 * i + 2] = p.normal_z;
                }
                if (curvature != nullptr) curvature[i] = p.curvature;
            }
        }
    }
};

// PCL's check, in its float arithmetic: voxels along one axis of `extent` metres.
inline double voxelsAlong(float extent, float inverseLeaf) {
    const float span = extent * inverseLeaf;
    // Past 2^62 the int64 conversion PCL does is undefined; any such count overflows anyway.
    return span < 4.6e18f ? double(int64_t(span) + 1) : std::numeric_limits<double>::infinity();
}

struct Bounds {
    float lo[3], hi[3];
};

// Whether PCL's VoxelGrid handles `leaf` on a cloud with these bounds: the voxel count fits its
// int32 index (PCL's own test), and every voxel coordinate floor(x / leaf) is an exact float.
bool leafWorks(const Bounds &b, float leaf) {
    const float inverse = 1.0f / leaf;  // as VoxelGrid::setLeafSize computes it
    double voxels = 1;
    double farthest = 0;
    for (int a = 0; a < 3; ++a) {
        voxels *= voxelsAlong(b.hi[a] - b.lo[a], inverse);
        farthest = std::max({farthest, std::fabs(double(b.lo[a] * inverse)), std::fabs(double(b.hi[a] * inverse))});
    }
    return voxels <= double(std::numeric_limits<int32_t>::max()) && farthest < kExactVoxelCoordinates;
}

// The smallest leaf that works, rounded up to two significant digits.
float smallestLeaf(const Bounds &b, float leaf) {
    double lo = leaf, hi = std::max(double(leaf), 1.0);
    while (!leafWorks(b, float(hi))) hi *= 2;
    for (int i = 0; i < 200 && hi > lo * (1 + 1e-9); ++i) {
        const double mid = 0.5 * (lo + hi);
        (leafWorks(b, float(mid)) ? hi : lo) = mid;
    }
    const double scale = std::pow(10.0, std::floor(std::log10(hi)) - 1);
    double nice = std::ceil(hi / scale - 1e-9) * scale;
    while (!leafWorks(b, float(nice))) nice += scale;
    return float(nice);
}

void checkLeaf(const Bounds &b, float leaf) {
    if (leafWorks(b, leaf)) return;
    const float inverse = 1.0f / leaf;
    double voxels = 1;
    for (int a = 0; a < 3; ++a) voxels *= voxelsAlong(b.hi[a] - b.lo[a], inverse);
    const std::string use = "; use at least " + cloudgen::number(smallestLeaf(b, leaf), 2);
    if (voxels > double(std::numeric_limits<int32_t>::max()))
        throw ShimError(CG_BAD_INPUT, "leaf too small for this " + cloudgen::number(b.hi[0] - b.lo[0]) + " x " +
                                          cloudgen::number(b.hi[1] - b.lo[1]) + " x " +
                                          cloudgen::number(b.hi[2] - b.lo[2]) +
                                          " m cloud (the voxel grid's 32-bit index would overflow, and PCL would "
                                          "return the cloud unfiltered)" + use);
    double farthest = 0;
    for (int a = 0; a < 3; ++a) farthest = std::max({farthest, std::fabs(double(b.lo[a])), std::fabs(double(b.hi[a]))});
    throw ShimError(CG_BAD_INPUT, "leaf too small for points " + cloudgen::number(farthest) +
                                      " m from the origin (PCL's float voxel coordinates cannot tell voxels apart "
                                      "beyond 2^24 leaves from it)" + use);
}

template <typename PointT>
void copyPoint(const cg_cloud_view &view, uint64_t i, PointT &p) {
    const float *xyz = view.positions + 3 * i;
    p.x = xyz[0];
    p.y = xyz[1];
    p.z = xyz[2];
    if constexpr (pcl::traits::has_color_v<PointT>) {
        p.r = view.colors[3 * i];
        p.g = view.colors[3 * i + 1];
        p.b = view.colors[3 * i + 2];
    }
    if constexpr (pcl::traits::has_normal_v<PointT>) {
        p.normal_x = view.normals[3 * i];
        p.normal_y = view.normals[3 * i + 1];
        p.normal_z = view.normals[3 * i + 2];
        p.curvature = view.curvature != nullptr ? view.curvature[i] : 0.0f;
    }
}

template <typename PointT>
std::unique_ptr<cg_filtered_cloud> voxelGrid(const cg_cloud_view &view, float leaf) {
    // VoxelGrid orders its voxels by z layer first, so cutting the cloud between whole layers
    // (floor(z / leaf), computed as VoxelGrid does) gives slabs whose voxel grids, concatenated in
    // z order, are the whole cloud's: the same voxels, the same points in each, the same order.
    const float inverse = 1.0f / leaf;

    // Slabs handed out as threads come free: a core busy with something else then holds up one
    // small slab, not half the cloud. Cuts at layer quantiles of a sample give the slabs similar
    // point counts. Their number is fixed, not a multiple of the cores: VoxelGrid sums a voxel's
    // points in the order its unstable sort leaves them, which depends on the slab's contents, so
    // a centroid's last bits (and every plane fitted on them downstream) would change with the
    // machine's core count.
    const int slabs = view.count >= kParallelMinimum ? kSlabs : 1;
    // Slab s holds the layers [cuts[s - 1], cuts[s]). A point's layer is floor(z * inverse) in
    // VoxelGrid's float arithmetic, and floor(v) >= c exactly when v >= c for a whole number c
    // (exact as a float: checkLeaf keeps layers within 2^24), so points are placed by comparing
    // z * inverse with the cuts.
    std::vector<float> cuts;
    if (slabs > 1) {
        std::vector<float> sample;
        for (uint64_t i = 0; i < view.count; i += std::max<uint64_t>(1, view.count / 4096)) {
            const float *xyz = view.positions + 3 * i;
            if (cloudgen::isFinitePoint(xyz)) sample.push_back(std::floor(xyz[2] * inverse));
        }
        std::sort(sample.begin(), sample.end());
        for (int s = 1; s < slabs && !sample.empty(); ++s) cuts.push_back(sample[sample.size() * size_t(s) / size_t(slabs)]);
    }

    // One pass over the view, in parallel chunks: the bounds getMinMax3D would find (finite points
    // only), and each point's slab (kNotFinite for the points VoxelGrid would skip).
    constexpr uint8_t kNotFinite = 255;
    Bounds bounds;
    std::fill(bounds.lo, bounds.lo + 3, std::numeric_limits<float>::max());
    std::fill(bounds.hi, bounds.hi + 3, std::numeric_limits<float>::lowest());
    std::vector<uint8_t> slabOf(view.count);
    std::vector<uint64_t> members(cuts.size() + 1);
    cloudgen::ChunkQueue chunks(view.count, kParallelMinimum);
    std::mutex merge;
    cloudgen::onEveryCore(
        [&] {
            Bounds local = bounds;
            std::vector<uint64_t> counted(members.size());
            size_t begin, end;
            while (chunks.next(begin, end)) {
                for (uint64_t i = begin; i < end; ++i) {
                    const float *xyz = view.positions + 3 * i;
                    if (!cloudgen::isFinitePoint(xyz)) {
                        slabOf[i] = kNotFinite;
                        continue;
                    }
                    for (int a = 0; a < 3; ++a) {
                        local.lo[a] = std::min(local.lo[a], xyz[a]);
                        local.hi[a] = std::max(local.hi[a], xyz[a]);
                    }
                    const float v = xyz[2] * inverse;
                    uint8_t slab = 0;
                    for (const float cut : cuts) slab += v >= cut;
                    slabOf[i] = slab;
                    ++counted[slab];
                }
            }
            std::lock_guard<std::mutex> lock(merge);
            for (int a = 0; a < 3; ++a) {
                bounds.lo[a] = std::min(bounds.lo[a], local.lo[a]);
                bounds.hi[a] = std::max(bounds.hi[a], local.hi[a]);
            }
            for (size_t s = 0; s < members.size(); ++s) members[s] += counted[s];
        },
        int(std::min<size_t>(size_t(cloudgen::coreCount()), chunks.chunks())));
    auto result = std::make_unique<PCLCloud<PointT>>();
    result->withCurvature = view.curvature != nullptr;
    if (bounds.lo[0] > bounds.hi[0]) return result;  // no finite point
    checkLeaf(bounds, leaf);

    std::vector<pcl::PointCloud<PointT>> parts(members.size());
    cloudgen::parallelFor(members.size(), 1, [] { return 0; }, [&](size_t s, int &) {
        if (members[s] == 0) return;
        // The one copy of the input, slab by slab, into PCL's point type for the view's channels.
        auto input = std::make_shared<pcl::PointCloud<PointT>>();
        auto &points = input->points;
        points.reserve(members[s]);
        for (uint64_t i = 0; i < view.count; ++i) {
            if (slabOf[i] != s) continue;
            points.emplace_back();
            copyPoint(view, i, points.back());
        }
        input->width = uint32_t(points.size());
        input->height = 1;
        input->is_dense = true;  // only finite points were copied
        pcl::VoxelGrid<PointT> grid;
        grid.setInputCloud(input);
        grid.setLeafSize(leaf, leaf, leaf);
        grid.filter(parts[s]);
    });
    for (const auto &part : parts) result->points += part;
    return result;
}

}  // namespace

extern "C" int32_t cg_filter_voxel_grid(const cg_cloud_view *cloud, float leaf, cg_filtered_cloud **out,
                                        uint64_t *count, cg_status *status) {
    if (out != nullptr) *out = nullptr;
    return cloudgen::guarded(status, [&] {
        cloudgen::checkFilterInput(cloud);
        if (out == nullptr) throw ShimError(CG_BAD_INPUT, "no result pointer given");
        if (!std::isfinite(leaf) || leaf <= 0)
            throw ShimError(CG_BAD_INPUT, "the leaf must be a positive number of metres, e.g. 0.01");
        std::unique_ptr<cg_filtered_cloud> result;
        if (cloud->colors != nullptr && cloud->normals != nullptr)
            result = voxelGrid<pcl::PointXYZRGBNormal>(*cloud, leaf);
        else if (cloud->colors != nullptr)
            result = voxelGrid<pcl::PointXYZRGB>(*cloud, leaf);
        else if (cloud->normals != nullptr)
            result = voxelGrid<pcl::PointNormal>(*cloud, leaf);
        else
            result = voxelGrid<pcl::PointXYZ>(*cloud, leaf);
        if (count != nullptr) *count = result->size();
        *out = result.release();
    });
}

extern "C" int32_t cg_filtered_cloud_copy(const cg_filtered_cloud *cloud, float *positions, uint8_t *colors,
                                          float *normals, float *curvature, uint64_t count, cg_status *status) {
    return cloudgen::guarded(status, [&] {
        if (cloud == nullptr) throw ShimError(CG_BAD_INPUT, "no cloud given");
        if (count != cloud->size()) throw ShimError(CG_BAD_INPUT, "buffer size does not match the cloud's point count");
        if ((colors != nullptr && !cloud->hasColors()) || (normals != nullptr && !cloud->hasNormals()) ||
            (curvature != nullptr && !cloud->hasCurvature()))
            throw ShimError(CG_BAD_INPUT, "asked for colors, normals or curvature the filtered cloud does not have");
        // The one copy on the way out: PCL's points interleave every field; ours are per channel.
        cloud->copy(positions, colors, normals, curvature);
    });
}

extern "C" void cg_filtered_cloud_free(cg_filtered_cloud *cloud) { delete cloud; }
