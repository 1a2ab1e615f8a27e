// cg_estimate_normals. Both paths fit a plane to "the points within `radius`" of each point, at a
// cost that does not grow with the radius or the cloud's density, and turn it toward the viewpoint.
//
// Organized clouds: PCL's IntegralImageNormalEstimation (AVERAGE_3D_GRADIENT), which fits any
// rectangular window in constant time, driven pixel by pixel: each window spans the radius on the
// surface (from the point spacing along the row and the column) and stops short of depth jumps.
// PCL's own driver (compute()) cannot do that: it uses one window size in pixels for the whole
// image, so the radius in metres grows with depth; its depth-dependent smoothing assumes
// millimetres; it treats every empty pixel as a jump; and it leaves the image border without
// normals. Pixels no window serves get a direct fit over their grid neighbourhood.
//
// Unorganized clouds: the nearest `max_neighbours` points within the radius (Open3D's hybrid
// search), then PCL's plane fit (computePointNormal). PCL's NormalEstimationOMP over a kd-tree
// capped that way was no faster than Open3D's (47 ms against 48 ms on the PCL grabber frame after
// a 1 cm voxel grid: FLANN spends about 3.5 us per query). Here points are bucketed into cubic
// cells, the candidates around a cell are gathered once for all of its points, and cells run in
// parallel (one thread per core).
#include "parallel.hpp"
#include "shim_internal.hpp"

#include <pcl/features/integral_image_normal.h>
#include <pcl/features/normal_3d.h>
#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace {

using cloudgen::parallelFor;
using cloudgen::ShimError;
using Cloud = pcl::PointCloud<pcl::PointXYZ>;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

inline bool isFinitePoint(const float *p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

// Where the results go: 3 floats per point of the caller's cloud for the normals, and one for
// the curvature when the caller wants it.
struct Output {
    float *normals;
    float *curvature;  // may be null

    void set(size_t i, const Eigen::Vector3f &n, float c) const {
        normals[3 * i] = n.x();
        normals[3 * i + 1] = n.y();
        normals[3 * i + 2] = n.z();
        if (curvature != nullptr) curvature[i] = c;
    }
    void setMissing(size_t i) const {
        normals[3 * i] = normals[3 * i + 1] = normals[3 * i + 2] = kNaN;
        if (curvature != nullptr) curvature[i] = kNaN;
    }
};

// PCL's least-squares plane through `indices` of `cloud` (at least 3 points), turned toward the
// viewpoint, and its surface variation.
bool fitNormal(const Cloud &cloud, const pcl::Indices &indices, const Eigen::Vector3f &point,
               const Eigen::Vector3f &viewpoint, Eigen::Vector3f &normal, float &curvature) {
    Eigen::Vector4f plane;
    if (!pcl::computePointNormal(cloud, indices, plane, curvature)) return false;
    normal = plane.head<3>();
    if (normal.dot(viewpoint - point) < 0) normal = -normal;
    return true;
}

// ---- Organized clouds ----

struct Grid2D {
    int width, height;
    size_t index(int x, int y) const { return size_t(y) * size_t(width) + size_t(x); }
};

// Along every row and every column each valid point is linked to the next valid one, across any
// empty pixels between them (empty pixels are no jump: the integral images skip them). A link
// longer than the radius's diameter is a depth jump, since no radius neighbourhood can hold both
// ends; both ends are marked as cut, and windows stop short of cut pixels. (A shorter limit, the
// radius itself, cut noisy surfaces into pieces: on the simulated room with noise the 99th
// percentile error grew from 7 to 22 degrees.)
//
// The spacing of a point along the line is the distance per pixel step to the valid point up to
// kChordSteps links away on either side (within one unbroken run of links), the larger of the two
// sides: over several steps depth noise adds little to the chord (a single step's length grows
// by the noise, which shrank windows to 3 x 3 pixels on noisy data), and the larger side is the
// one that lies on the point's own surface when the other crosses a fold.
struct Links {
    std::vector<uint8_t> cut;
    std::vector<float> spacingX, spacingY;  // NaN: no link on either side
};

constexpr int kChordSteps = 4;

// `at` and `points`: scratch space for the line's valid pixels (position along the line, 3D
// point), gathered once so that the chords read them contiguously.
template <typename Pixel>
void linkLine(const Cloud &cloud, int length, float radius, Pixel pixel, std::vector<uint8_t> &cut,
              std::vector<float> &spacing, std::vector<int> &at, std::vector<Eigen::Vector3f> &points,
              std::vector<uint8_t> &joined) {
    at.clear();
    points.clear();
    joined.clear();  // joined[k]: the link from valid pixel k to k + 1 is no jump
    for (int t = 0; t < length; ++t) {
        const size_t i = pixel(t);
        if (!std::isfinite(cloud[i].z)) continue;
        const Eigen::Vector3f p = cloud[i].getVector3fMap();
        if (!at.empty()) {
            const bool near = (p - points.back()).norm() <= 2 * radius;
            if (!near) cut[i] = cut[pixel(at.back())] = 1;
            joined.push_back(near);
        }
        at.push_back(t);
        points.push_back(p);
    }
    const int m = int(at.size());
    for (int a = 0; a < m; ++a) {
        auto perStep = [&](int b) { return (points[b] - points[a]).norm() / float(std::abs(at[b] - at[a])); };
        float s = kNaN;
        int b = a;
        while (b + 1 < m && b - a < kChordSteps && joined[b]) ++b;
        if (b > a) s = perStep(b);
        b = a;
        while (b > 0 && a - b < kChordSteps && joined[b - 1]) --b;
        if (b < a) s = std::fmax(s, perStep(b));  // fmax ignores a NaN side
        spacing[pixel(at[a])] = s;
    }
}

Links linkGrid(const Cloud &cloud, const Grid2D &grid, float radius) {
    const size_t n = cloud.size();
    Links links{std::vector<uint8_t>(n, 0), std::vector<float>(n, kNaN), std::vector<float>(n, kNaN)};
    // Rows, then columns, in parallel: within each loop the lines share no pixel, and a cut flag
    // is only ever set to 1.
    struct Scratch {
        std::vector<int> at;
        std::vector<Eigen::Vector3f> points;
        std::vector<uint8_t> joined;
    };
    const auto scratch = [] { return Scratch(); };
    parallelFor(size_t(grid.height), 16, scratch, [&](size_t y, Scratch &s) {
        linkLine(cloud, grid.width, radius, [&](int x) { return grid.index(x, int(y)); }, links.cut, links.spacingX, s.at,
                 s.points, s.joined);
    });
    parallelFor(size_t(grid.width), 16, scratch, [&](size_t x, Scratch &s) {
        linkLine(cloud, grid.height, radius, [&](int y) { return grid.index(int(x), y); }, links.cut, links.spacingY, s.at,
                 s.points, s.joined);
    });
    return links;
}

// Chessboard distance (in pixels) from every pixel to the nearest cut pixel, by the classic two
// passes; a window of half-size d - 1 around a pixel at distance d holds no cut pixel.
std::vector<int32_t> distanceToCuts(const std::vector<uint8_t> &cut, const Grid2D &grid) {
    const int32_t far = grid.width + grid.height;
    std::vector<int32_t> d(cut.size());
    for (size_t i = 0; i < cut.size(); ++i) d[i] = cut[i] ? 0 : far;
    for (int y = 0; y < grid.height; ++y)
        for (int x = 0; x < grid.width; ++x) {
            int32_t &here = d[grid.index(x, y)];
            if (x > 0) here = std::min(here, d[grid.index(x - 1, y)] + 1);
            if (y > 0)
                for (int dx = std::max(0, x - 1); dx <= std::min(grid.width - 1, x + 1); ++dx)
                    here = std::min(here, d[grid.index(dx, y - 1)] + 1);
        }
    for (int y = grid.height - 1; y >= 0; --y)
        for (int x = grid.width - 1; x >= 0; --x) {
            int32_t &here = d[grid.index(x, y)];
            if (x < grid.width - 1) here = std::min(here, d[grid.index(x + 1, y)] + 1);
            if (y < grid.height - 1)
                for (int dx = std::max(0, x - 1); dx <= std::min(grid.width - 1, x + 1); ++dx)
                    here = std::min(here, d[grid.index(dx, y + 1)] + 1);
        }
    return d;
}

// How many valid pixels a window holds: a summed-area table of the validity mask.
class ValidCounts {
public:
    ValidCounts(const Cloud &cloud, const Grid2D &grid) : stride_(size_t(grid.width) + 1), sums_(stride_ * (size_t(grid.height) + 1), 0) {
        for (int y = 0; y < grid.height; ++y) {
            uint32_t row = 0;
            for (int x = 0; x < grid.width; ++x) {
                row += std::isfinite(cloud[grid.index(x, y)].z);
                sums_[(y + 1) * stride_ + x + 1] = sums_[y * stride_ + x + 1] + row;
            }
        }
    }
    // Valid pixels in columns x0...x1 of rows y0...y1.
    uint32_t in(int x0, int y0, int x1, int y1) const {
        return sums_[(y1 + 1) * stride_ + x1 + 1] - sums_[y0 * stride_ + x1 + 1] - sums_[(y1 + 1) * stride_ + x0] + sums_[y0 * stride_ + x0];
    }

private:
    size_t stride_;
    std::vector<uint32_t> sums_;
};

// Half-size in pixels of a window that spans `radius` at `spacing` metres per pixel step.
inline int spanOf(float radius, float spacing, int limit) {
    if (!(spacing > 0)) return 0;
    return int(std::min(float(limit), radius / spacing));
}

// A pixel the integral image cannot serve (next to a depth jump, or on a surface too narrow in
// the image for a window) is fitted to the grid points within the radius in a window around it
// that covers the radius at its finest spacing, sampled on a stride that keeps about
// (2 sqrt(max_neighbours) + 1)^2 pixels in the window: the same neighbourhood as the integral
// window's, thinned out, at a bounded cost however dense the grid.
void fitFromWindow(const Cloud &cloud, const Grid2D &grid, const Links &links, int x, int y, float radius,
                   unsigned maxNeighbours, const Eigen::Vector3f &viewpoint, const Output &out, pcl::Indices &nn) {
    const size_t i = grid.index(x, y);
    const Eigen::Vector3f p = cloud[i].getVector3fMap();
    const float spacing = std::fmin(links.spacingX[i], links.spacingY[i]);  // fmin ignores a NaN side
    const int h = std::isfinite(spacing) ? int(std::ceil(std::min(radius / spacing, float(grid.width + grid.height)))) : 1;
    const int samples = int(std::ceil(std::sqrt(float(maxNeighbours))));
    const int stride = std::max(1, (h + samples - 1) / samples);
    const float r2 = radius * radius;
    nn.clear();
    for (int dy = -(h / stride) * stride; dy <= h; dy += stride) {
        const int qy = y + dy;
        if (qy < 0 || qy >= grid.height) continue;
        for (int dx = -(h / stride) * stride; dx <= h; dx += stride) {
            const int qx = x + dx;
            if (qx < 0 || qx >= grid.width) continue;
            const size_t j = grid.index(qx, qy);
            if (std::isfinite(cloud[j].z) && (cloud[j].getVector3fMap() - p).squaredNorm() <= r2) nn.push_back(pcl::index_t(j));
        }
    }
    Eigen::Vector3f normal;
    float curvature;
    if (fitNormal(cloud, nn, p, viewpoint, normal, curvature)) out.set(i, normal, curvature);
    else out.setMissing(i);
}

// The pixels an integral-image window serves get their normals; the others (and every valid pixel
// the estimator leaves without a normal) are appended to `leftovers`.
void integralNormals(const Cloud::Ptr &cloud, const Grid2D &grid, const Links &links, float radius,
                     const Eigen::Vector3f &viewpoint, const Output &out, std::vector<int> &leftovers) {
    const std::vector<int32_t> distance = distanceToCuts(links.cut, grid);
    const ValidCounts valid(*cloud, grid);

    // AVERAGE_3D_GRADIENT: the normal is the cross product of the window's summed horizontal and
    // vertical 3D differences. COVARIANCE_MATRIX (a least-squares plane through the window) was
    // slightly better on exact depth (simulated room, noise=0: 99.997% against 99.87% of points
    // within 2 degrees), but depth noise lies along the rays, and a least-squares plane leans
    // toward it: with noise the median error was 3.1 degrees against 1.9 (Float16 depth at
    // 256x192), and 3.4 against 1.4 at 640x480. The gradients also need no eigen solver.
    pcl::IntegralImageNormalEstimation<pcl::PointXYZ, pcl::Normal> estimator;
    estimator.setNormalEstimationMethod(estimator.AVERAGE_3D_GRADIENT);
    estimator.setViewPoint(viewpoint.x(), viewpoint.y(), viewpoint.z());
    estimator.setInputCloud(cloud);  // builds the integral images
    // The gradients give no curvature (PCL leaves it NaN); the window's covariance does, from
    // integral images of its own, built only when the caller wants curvature.
    pcl::IntegralImageNormalEstimation<pcl::PointXYZ, pcl::Normal> covariance;
    if (out.curvature != nullptr) {
        covariance.setNormalEstimationMethod(covariance.COVARIANCE_MATRIX);
        covariance.setInputCloud(cloud);
    }

    for (int y = 0; y < grid.height; ++y) {
        for (int x = 0; x < grid.width; ++x) {
            const size_t i = grid.index(x, y);
            if (!std::isfinite((*cloud)[i].z)) {
                out.setMissing(i);
                continue;
            }
            const int limit = distance[i] - 1;
            const int hx = spanOf(radius, links.spacingX[i], limit), hy = spanOf(radius, links.spacingY[i], limit);
            if (hx < 1 || hy < 1) {
                leftovers.push_back(int(i));
                continue;
            }
            // The window, cut to the image: PCL centres its rectangle on (pos_x, pos_y), so a
            // window clipped at the border is passed by its own centre, with the pixel's index
            // for the orientation.
            const int x0 = std::max(0, x - hx), x1 = std::min(grid.width - 1, x + hx);
            const int y0 = std::max(0, y - hy), y1 = std::min(grid.height - 1, y + hy);
            // PCL only refuses a window without points; one with fewer than 3 has no plane.
            if (valid.in(x0, y0, x1, y1) < 3) {
                leftovers.push_back(int(i));
                continue;
            }
            const int w = x1 - x0 + 1, h = y1 - y0 + 1;
            estimator.setRectSize(w, h);
            pcl::Normal normal;
            estimator.computePointNormal(x0 + w / 2, y0 + h / 2, unsigned(i), normal);
            if (!std::isfinite(normal.normal_x)) {
                leftovers.push_back(int(i));
                continue;
            }
            if (out.curvature != nullptr) {
                covariance.setRectSize(w, h);
                pcl::Normal fitted;
                covariance.computePointNormal(x0 + w / 2, y0 + h / 2, unsigned(i), fitted);
                normal.curvature = fitted.curvature;
            }
            out.set(i, normal.getNormalVector3fMap(), normal.curvature);
        }
    }
}

void organizedNormals(const cg_cloud_view &view, float radius, unsigned maxNeighbours, const Eigen::Vector3f &viewpoint,
                      const Output &out) {
    const Grid2D grid{int(view.width), int(view.height)};
    // PCL's estimator reads PointXYZ records: the one copy of the positions.
    Cloud::Ptr cloud(new Cloud(view.width, view.height));
    cloud->is_dense = false;
    for (size_t i = 0; i < cloud->size(); ++i) {
        const float *p = view.positions + 3 * i;
        // A point with any non-finite coordinate is an empty pixel: all NaN, as PCL marks it.
        (*cloud)[i] = isFinitePoint(p) ? pcl::PointXYZ(p[0], p[1], p[2]) : pcl::PointXYZ(kNaN, kNaN, kNaN);
    }
    const Links links = linkGrid(*cloud, grid, radius);
    std::vector<int> leftovers;  // pixels for fitFromWindow, as y * width + x
    // PCL's gradient images need 3 x 3 pixels (narrower, its loop bounds wrap around).
    if (grid.width >= 3 && grid.height >= 3) integralNormals(cloud, grid, links, radius, viewpoint, out, leftovers);
    else
        for (size_t i = 0; i < cloud->size(); ++i) {
            if (std::isfinite((*cloud)[i].z)) leftovers.push_back(int(i));
            else out.setMissing(i);
        }

    parallelFor(leftovers.size(), 64, [] { return pcl::Indices(); }, [&](size_t k, pcl::Indices &nn) {
        fitFromWindow(*cloud, grid, links, leftovers[k] % grid.width, leftovers[k] / grid.width, radius, maxNeighbours,
                      viewpoint, out, nn);
    });
}

// ---- Unorganized clouds ----

// The finite points bucketed into cubic cells of side `cell`, sorted by cell (x varying fastest),
// with a hash table from cell to its run of points.
class CellGrid {
public:
    // Cells are indexed by 21 bits per axis; a cloud more than 2^21 - 2 cells across gets larger
    // cells, which costs time, never correctness.
    static constexpr int64_t kMaxCells = (int64_t(1) << 21) - 2;

    CellGrid(const Cloud &points, float cell) {
        Eigen::Vector3f lo = points[0].getVector3fMap(), hi = lo;
        for (const auto &p : points) {
            lo = lo.cwiseMin(p.getVector3fMap());
            hi = hi.cwiseMax(p.getVector3fMap());
        }
        origin_ = lo;
        const float extent = (hi - lo).maxCoeff();
        cell_ = std::max(std::min(cell, extent), extent / float(kMaxCells));
        if (!(cell_ > 0)) cell_ = cell;  // all points at one place
        span_ = int(std::min<float>(float(kMaxCells), std::floor(extent / cell_)));
        const size_t n = points.size();
        std::vector<std::pair<uint64_t, uint32_t>> keyed(n);
        for (size_t i = 0; i < n; ++i) {
            const Eigen::Array3i c = cellOf(points[i].getVector3fMap());
            keyed[i] = {key(c.x(), c.y(), c.z()), uint32_t(i)};
        }
        std::sort(keyed.begin(), keyed.end());
        sorted_.resize(n);
        source_.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            sorted_[i] = points[keyed[i].second];
            source_.push_back(keyed[i].second);
        }
        for (size_t i = 0; i < n; ++i)
            if (i == 0 || keyed[i].first != keyed[i - 1].first) runs_.push_back({keyed[i].first, uint32_t(i), 0});
        for (size_t r = 0; r < runs_.size(); ++r)
            runs_[r].end = r + 1 < runs_.size() ? runs_[r + 1].begin : uint32_t(n);
        size_t capacity = 16;
        while (capacity < 2 * runs_.size()) capacity <<= 1;
        mask_ = capacity - 1;
        table_.assign(capacity, kEmpty);
        for (size_t r = 0; r < runs_.size(); ++r) {
            size_t h = hash(runs_[r].key) & mask_;
            while (table_[h] != kEmpty) h = (h + 1) & mask_;
            table_[h] = uint32_t(r);
        }
    }

    struct Run {
        uint64_t key;
        uint32_t begin, end;
    };

    float cell() const { return cell_; }
    // The largest cell index along any axis: rings beyond it hold nothing.
    int span() const { return span_; }
    const Cloud &sorted() const { return sorted_; }
    // The index in the original cloud of sorted point `i`.
    uint32_t source(size_t i) const { return source_[i]; }
    const std::vector<Run> &runs() const { return runs_; }

    Eigen::Array3i cellOf(const Eigen::Vector3f &p) const {
        return ((p - origin_) / cell_).array().floor().cast<int>().min(int(kMaxCells));
    }
    Eigen::Array3i cellOf(const Run &run) const {
        constexpr uint64_t m = (uint64_t(1) << 21) - 1;
        return Eigen::Array3i(int(run.key & m), int((run.key >> 21) & m), int(run.key >> 42));
    }

    // The points of cell (x, y, z): [begin, end) of sorted(); false for an empty cell.
    bool find(int x, int y, int z, uint32_t &begin, uint32_t &end) const {
        if (x < 0 || y < 0 || z < 0 || x > kMaxCells || y > kMaxCells || z > kMaxCells) return false;
        const uint64_t k = key(x, y, z);
        for (size_t h = hash(k) & mask_;; h = (h + 1) & mask_) {
            if (table_[h] == kEmpty) return false;
            const Run &run = runs_[table_[h]];
            if (run.key == k) {
                begin = run.begin;
                end = run.end;
                return true;
            }
        }
    }

    // How many points share a point's cell, averaged over the points.
    double pointsPerCell() const {
        double sum = 0;
        for (const Run &run : runs_) sum += double(run.end - run.begin) * double(run.end - run.begin);
        return sum / double(sorted_.size());
    }

private:
    static constexpr uint32_t kEmpty = ~uint32_t(0);
    static uint64_t key(int x, int y, int z) { return uint64_t(z) << 42 | uint64_t(y) << 21 | uint64_t(x); }
    static uint64_t hash(uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        return k ^ (k >> 33);
    }

    Eigen::Vector3f origin_;
    float cell_;
    int span_;
    Cloud sorted_;
    std::vector<uint32_t> source_;
    std::vector<Run> runs_;
    std::vector<uint32_t> table_;
    size_t mask_ = 0;
};

// A neighbour candidate: squared distance and index in the grid's sorted cloud.
struct Near {
    float d2;
    uint32_t id;
    bool operator<(const Near &other) const { return d2 < other.d2; }
};

// One thread's scratch space: the candidates around the current cell (structure of arrays, so the
// distance loop vectorizes) and the current point's neighbours, the first `found` of `near` (a
// buffer that only grows, so that no point pays for initializing it).
struct Scratch {
    std::vector<float> x, y, z, d2;
    std::vector<uint32_t> id;
    std::vector<Near> near, boundary;
    size_t found = 0;
    pcl::Indices nn;

    void gather(const CellGrid &grid, const Eigen::Array3i &c) {
        x.clear();
        y.clear();
        z.clear();
        id.clear();
        const Cloud &cloud = grid.sorted();
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    uint32_t begin, end;
                    if (!grid.find(c.x() + dx, c.y() + dy, c.z() + dz, begin, end)) continue;
                    for (uint32_t j = begin; j < end; ++j) {
                        x.push_back(cloud[j].x);
                        y.push_back(cloud[j].y);
                        z.push_back(cloud[j].z);
                        id.push_back(j);
                    }
                }
        d2.resize(id.size());
        if (near.size() < id.size()) near.resize(id.size());
    }

    // Returns how many gathered candidates lie within sqrt(c2) of p, and keeps in `near` those
    // that can be among the k nearest: within sqrt(c2) when there are k of them, else within
    // sqrt(r2).
    size_t scan(const Eigen::Vector3f &p, unsigned k, float r2, float c2) {
        const size_t m = id.size();
        const float *px = x.data(), *py = y.data(), *pz = z.data();
        float *pd = d2.data();
        size_t certain = 0;
#pragma omp simd reduction(+ : certain)
        for (size_t j = 0; j < m; ++j) {
            const float dx = px[j] - p.x(), dy = py[j] - p.y(), dz = pz[j] - p.z();
            pd[j] = dx * dx + dy * dy + dz * dz;
            certain += pd[j] <= c2;
        }
        const float limit = certain >= k ? std::min(c2, r2) : r2;
        found = 0;
        for (size_t j = 0; j < m; ++j) {
            near[found] = Near{pd[j], id[j]};
            found += pd[j] <= limit;
        }
        return certain;
    }

    // Adds the points within sqrt(r2) of p in the cells at chessboard distance `ring` from c;
    // returns how many of all found are within `reach`.
    size_t addRing(const CellGrid &grid, const Eigen::Array3i &c, int ring, const Eigen::Vector3f &p, float r2,
                   float reach) {
        const Cloud &cloud = grid.sorted();
        for (int dz = -ring; dz <= ring; ++dz)
            for (int dy = -ring; dy <= ring; ++dy)
                for (int dx = -ring; dx <= ring; ++dx) {
                    if (std::max({std::abs(dx), std::abs(dy), std::abs(dz)}) != ring) continue;
                    uint32_t begin, end;
                    if (!grid.find(c.x() + dx, c.y() + dy, c.z() + dz, begin, end)) continue;
                    for (uint32_t j = begin; j < end; ++j) {
                        const float d = (cloud[j].getVector3fMap() - p).squaredNorm();
                        if (d > r2) continue;
                        if (found == near.size()) near.resize(std::max<size_t>(16, 2 * found));
                        near[found++] = Near{d, j};
                    }
                }
        return size_t(std::count_if(near.begin(), near.begin() + found, [&](const Near &e) { return e.d2 <= reach * reach; }));
    }

    // Adds the points within sqrt(r2) of p in every occupied cell farther than `ring` from c.
    void addBeyond(const CellGrid &grid, const Eigen::Array3i &c, int ring, const Eigen::Vector3f &p, float r2) {
        const Cloud &cloud = grid.sorted();
        for (const CellGrid::Run &run : grid.runs()) {
            if ((grid.cellOf(run) - c).abs().maxCoeff() <= ring) continue;
            for (uint32_t j = run.begin; j < run.end; ++j) {
                const float d = (cloud[j].getVector3fMap() - p).squaredNorm();
                if (d > r2) continue;
                if (found == near.size()) near.resize(std::max<size_t>(16, 2 * found));
                near[found++] = Near{d, j};
            }
        }
    }

    // The nearest `k` of the points found within sqrt(bound2), as indices for PCL. On a
    // surface the count within a distance grows with its square, so buckets of equal width in
    // squared distance hold similar counts: counting finds the bucket that holds the k-th
    // nearest, and only that bucket's few points are put in order (nth_element over all of them
    // cost more than the search).
    const pcl::Indices &nearest(unsigned k, float bound2) {
        nn.clear();
        if (found <= k) {
            for (size_t i = 0; i < found; ++i) nn.push_back(pcl::index_t(near[i].id));
            return nn;
        }
        constexpr int kBuckets = 64;
        const float scale = kBuckets / bound2;
        // Beyond the bound: a bucket past the last, never taken.
        auto bucket = [&](float d2) { return d2 > bound2 ? kBuckets : std::min(kBuckets - 1, int(d2 * scale)); };
        uint32_t counts[kBuckets + 1] = {};
        for (size_t i = 0; i < found; ++i) ++counts[bucket(near[i].d2)];
        int last = 0;
        uint32_t below = 0;
        while (below + counts[last] < k) below += counts[last++];
        boundary.clear();
        for (size_t i = 0; i < found; ++i) {
            const int b = bucket(near[i].d2);
            if (b < last) nn.push_back(pcl::index_t(near[i].id));
            else if (b == last) boundary.push_back(near[i]);
        }
        const size_t rest = k - below;
        std::nth_element(boundary.begin(), boundary.begin() + (rest - 1), boundary.end());
        for (size_t i = 0; i < rest; ++i) nn.push_back(pcl::index_t(boundary[i].id));
        return nn;
    }
};

void unorganizedNormals(const cg_cloud_view &view, float radius, unsigned maxNeighbours,
                        const Eigen::Vector3f &viewpoint, const Output &out) {
    Cloud finite;
    std::vector<uint32_t> sourceIndex;  // finite point -> index in the caller's cloud
    finite.reserve(size_t(view.count));
    sourceIndex.reserve(size_t(view.count));
    for (uint64_t i = 0; i < view.count; ++i) {
        const float *p = view.positions + 3 * i;
        if (isFinitePoint(p)) {
            finite.push_back(pcl::PointXYZ(p[0], p[1], p[2]));
            sourceIndex.push_back(uint32_t(i));
        } else {
            out.setMissing(size_t(i));
        }
    }
    if (finite.empty()) return;
    // Cells of the radius (or of the whole cloud, if smaller) hold every neighbour within the
    // 3 x 3 x 3 cells around a point's own. In a cloud so dense that they hold many times more
    // points than the cap, smaller cells are searched ring by ring instead, until the nearest
    // max_neighbours are certain: a point within ring R * cell of p is found by the time ring R
    // has been searched. About k / 2 points per cell leaves k within one cell's side of most
    // points (a surface puts about 2.4 times a cell's count within that distance); a few rounds
    // get there from any starting size.
    const double target = std::max(4.0, maxNeighbours / 2.0);
    auto grid = std::make_unique<CellGrid>(finite, radius);
    for (int round = 0; round < 3 && grid->pointsPerCell() > 4 * target; ++round)
        grid = std::make_unique<CellGrid>(finite, grid->cell() * float(std::sqrt(target / grid->pointsPerCell())));

    const Cloud &cloud = grid->sorted();
    const float cell = grid->cell(), r2 = radius * radius, c2 = cell * cell;
    // Rings past the radius or past the cloud's far side hold no neighbour.
    const int maxRing = cell >= radius ? 1 : int(std::min<float>(float(grid->span()), std::ceil(radius / cell)));
    const auto &runs = grid->runs();
    parallelFor(runs.size(), 16, [] { return Scratch(); }, [&](size_t r, Scratch &s) {
        const Eigen::Array3i c = grid->cellOf(runs[r]);
        s.gather(*grid, c);
        for (uint32_t i = runs[r].begin; i < runs[r].end; ++i) {
            const Eigen::Vector3f p = cloud[i].getVector3fMap();
            // Every neighbour within one cell's side of p is among the candidates; once k of
            // them are, the k nearest lie within that reach.
            float reach = cell;
            size_t certain = s.scan(p, maxNeighbours, r2, c2);
            bool complete = maxRing <= 1;
            for (int ring = 2; ring <= maxRing && certain < maxNeighbours; ++ring) {
                // A ring of more cells than the grid has occupied ones (a point far from the
                // rest): all the remaining cells at once, by their list.
                const int64_t side = 2 * ring + 1;
                if (side * side * side > int64_t(runs.size())) {
                    s.addBeyond(*grid, c, ring - 1, p, r2);
                    complete = true;
                    break;
                }
                reach = float(ring) * cell;
                certain = s.addRing(*grid, c, ring, p, r2, reach);
                complete = ring == maxRing;
            }
            const float bound2 = certain >= maxNeighbours && !complete ? std::min(r2, reach * reach) : r2;
            const pcl::Indices &nn = s.nearest(maxNeighbours, bound2);
            Eigen::Vector3f normal;
            float curvature;
            const size_t target = sourceIndex[grid->source(i)];
            if (fitNormal(cloud, nn, p, viewpoint, normal, curvature)) out.set(target, normal, curvature);
            else out.setMissing(target);
        }
    });
}

}  // namespace

extern "C" int32_t cg_estimate_normals(const cg_cloud_view *cloud, float radius, uint32_t max_neighbours,
                                       const float viewpoint[3], float *normals, float *curvature,
                                       cg_status *status) {
    return cloudgen::guarded(status, [&] {
        if (cloud == nullptr || cloud->positions == nullptr || viewpoint == nullptr || normals == nullptr)
            throw ShimError(CG_BAD_INPUT, "no cloud, viewpoint or normals buffer given");
        if (cloud->height == 0 || uint64_t(cloud->width) * cloud->height != cloud->count)
            throw ShimError(CG_BAD_INPUT, "width x height does not equal the point count");
        if (!(radius > 0) || !std::isfinite(radius))
            throw ShimError(CG_BAD_INPUT, "the normal radius must be a positive number of metres");
        if (max_neighbours < 3) throw ShimError(CG_BAD_INPUT, "a plane needs at least 3 neighbours");
        // Points are indexed by 32-bit integers (pcl::index_t).
        if (cloud->count > uint64_t(std::numeric_limits<int32_t>::max()))
            throw ShimError(CG_BAD_INPUT, "the cloud has more than 2^31 - 1 points");
        const Eigen::Vector3f eye(viewpoint[0], viewpoint[1], viewpoint[2]);
        if (!eye.allFinite()) throw ShimError(CG_BAD_INPUT, "the viewpoint is not finite");
        const Output out{normals, curvature};
        if (cloud->height > 1) organizedNormals(*cloud, radius, max_neighbours, eye, out);
        else if (cloud->count > 0) unorganizedNormals(*cloud, radius, max_neighbours, eye, out);
    });
}
