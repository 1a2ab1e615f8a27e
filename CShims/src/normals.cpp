// cg_estimate_normals: surface normals for organized clouds through PCL's integral images, and for
// unorganized ones through a radius search capped at the nearest `max_neighbours` points (Open3D's
// hybrid search) feeding PCL's plane fit, on every core.
//
// Both paths answer the same question, "the plane through the points within `radius`", at a cost
// that does not grow with the cloud's density:
// - Organized: a pixel's window is sized so that it spans the radius on the surface (from the
//   spacing of its neighbours along the row and the column), shrunk so that it never reaches
//   across a depth jump; PCL's IntegralImageNormalEstimation fits it in constant time whatever
//   its size. PCL's own driver cannot do this: its window is one pixel size for the whole image
//   (so the radius in metres grows with depth), its depth-dependent smoothing assumes
//   millimetres, and it leaves a border of the window's size without normals.
// - Unorganized: PCL's NormalEstimationOMP over a capped kd-tree search ran no faster than
//   Open3D here (47 ms against 48 ms on the PCL grabber frame after a 1 cm voxel grid; FLANN
//   spends 3.5 us per query). Points are bucketed into cubic cells instead; the candidates around
//   a cell are gathered once and shared by all of its points, and cells run in parallel.
#include "shim_internal.hpp"

#include <pcl/common/centroid.h>
#include <pcl/features/integral_image_normal.h>
#include <pcl/features/normal_3d.h>
#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace {

using cloudgen::ShimError;
using Cloud = pcl::PointCloud<pcl::PointXYZ>;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

inline bool isFinitePoint(const float *p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

// Where the results go: normals (3 per point) and, optionally, curvature (PCL's surface
// variation, the smallest eigenvalue over their sum: 0 on a plane, 1/3 at most).
struct Output {
    float *normals;
    float *curvature;

    void set(size_t i, const Eigen::Vector3f &n, float c) const {
        normals[3 * i] = n.x();
        normals[3 * i + 1] = n.y();
        normals[3 * i + 2] = n.z();
        if (curvature) curvature[i] = c;
    }
    void setMissing(size_t i) const {
        normals[3 * i] = normals[3 * i + 1] = normals[3 * i + 2] = kNaN;
        if (curvature) curvature[i] = kNaN;
    }
};

// PCL's plane fit over `indices` of `cloud`, turned to face the viewpoint.
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

// Along every row and every column, each valid point is linked to the next valid one (across any
// empty pixels between them). A link longer than the radius is a depth jump: no neighbourhood of
// that radius can hold both ends, so both ends are marked as cut and windows stop short of them.
// Links within the radius give the point spacing on the surface, per pixel step, along the row
// (spacingX) and the column (spacingY): the mean of a pixel's links on either side, NaN without
// any. Empty pixels are no jump: the integral images skip them.
struct Links {
    std::vector<uint8_t> cut;
    std::vector<float> spacingX, spacingY;
};

template <typename Step>
void linkLine(const Cloud &cloud, int length, float radius, Step pixel, std::vector<uint8_t> &cut,
              std::vector<float> &spacing) {
    static const int K = std::getenv("CG_NORMALS_K") ? std::atoi(std::getenv("CG_NORMALS_K")) : 4;
    static const float J = std::getenv("CG_NORMALS_JUMP") ? float(std::atof(std::getenv("CG_NORMALS_JUMP"))) : 1.0f;
    std::vector<int> at;           // the line's valid pixels, by position along the line
    std::vector<uint8_t> joined;   // joined[k]: valid pixels k and k + 1 are within the radius
    for (int t = 0; t < length; ++t) {
        const size_t i = pixel(t);
        if (!std::isfinite(cloud[i].z)) continue;
        if (!at.empty()) {
            const size_t j = pixel(at.back());
            const bool near = (cloud[i].getVector3fMap() - cloud[j].getVector3fMap()).norm() <= J * radius;
            if (!near) cut[i] = cut[j] = 1;
            joined.push_back(near);
        }
        at.push_back(t);
    }
    const int m = int(at.size());
    for (int a = 0; a < m; ++a) {
        const Eigen::Vector3f p = cloud[pixel(at[a])].getVector3fMap();
        float best = kNaN;
        int b = a;
        while (b + 1 < m && b - a < K && joined[b]) ++b;
        if (b > a) best = (cloud[pixel(at[b])].getVector3fMap() - p).norm() / float(at[b] - at[a]);
        b = a;
        while (b > 0 && a - b < K && joined[b - 1]) --b;
        if (b < a) best = std::fmax(best, (cloud[pixel(at[b])].getVector3fMap() - p).norm() / float(at[a] - at[b]));
        spacing[pixel(at[a])] = best;
    }
}

Links linkGrid(const Cloud &cloud, const Grid2D &grid, float radius) {
    const size_t n = cloud.size();
    Links links{std::vector<uint8_t>(n, 0), std::vector<float>(n, kNaN), std::vector<float>(n, kNaN)};
    // Rows and columns write disjoint pixels within each loop; a pixel's cut flag is only ever
    // set to 1, by either loop.
#pragma omp parallel for schedule(static)
    for (int y = 0; y < grid.height; ++y)
        linkLine(cloud, grid.width, radius, [&](int x) { return grid.index(x, y); }, links.cut, links.spacingX);
#pragma omp parallel for schedule(static)
    for (int x = 0; x < grid.width; ++x)
        linkLine(cloud, grid.height, radius, [&](int y) { return grid.index(x, y); }, links.cut, links.spacingY);
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
    const std::vector<int32_t> distance = distanceToCuts(links.cut, grid);
    const ValidCounts valid(*cloud, grid);

    // The covariance method fits the plane to every point of the window (least squares, with
    // curvature); the gradient methods take differences at the window's edges and were less
    // accurate on the simulated room (see the header).
    pcl::IntegralImageNormalEstimation<pcl::PointXYZ, pcl::Normal> estimator;
    estimator.setNormalEstimationMethod(std::getenv("CG_NORMALS_METHOD") && std::atoi(std::getenv("CG_NORMALS_METHOD")) == 1 ? estimator.AVERAGE_3D_GRADIENT : estimator.COVARIANCE_MATRIX);
    estimator.setViewPoint(viewpoint.x(), viewpoint.y(), viewpoint.z());
    estimator.setInputCloud(cloud);  // builds the integral images

    std::vector<int> leftovers;  // pixels for fitFromWindow, as y * width + x
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
            if (std::isfinite(normal.normal_x)) out.set(i, normal.getNormalVector3fMap(), normal.curvature);
            else leftovers.push_back(int(i));
        }
    }

#pragma omp parallel
    {
        pcl::Indices nn;
#pragma omp for schedule(dynamic, 64)
        for (size_t k = 0; k < leftovers.size(); ++k)
            fitFromWindow(*cloud, grid, links, leftovers[k] % grid.width, leftovers[k] / grid.width, radius, maxNeighbours,
                          viewpoint, out, nn);
    }
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
        cell_ = std::max(cell, (hi - lo).maxCoeff() / float(kMaxCells));
        const size_t n = points.size();
        std::vector<std::pair<uint64_t, uint32_t>> keyed(n);
        for (size_t i = 0; i < n; ++i) {
            const Eigen::Array3i c = cellOf(points[i].getVector3fMap());
            keyed[i] = {key(c.x(), c.y(), c.z()), uint32_t(i)};
        }
        std::sort(keyed.begin(), keyed.end());
        sorted_.resize(n);
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
    Cloud sorted_;
    std::vector<uint32_t> source_;
    std::vector<Run> runs_;
    std::vector<uint32_t> table_;
    size_t mask_ = 0;
};

// One thread's scratch space: the candidates around the current cell (structure of arrays, so the
// distance loop vectorizes) and the current point's neighbours.
struct Scratch {
    std::vector<float> x, y, z;
    std::vector<uint32_t> id;
    std::vector<std::pair<float, uint32_t>> near;
    pcl::Indices nn;

    void clear() {
        x.clear();
        y.clear();
        z.clear();
        id.clear();
    }
    void add(const Cloud &cloud, uint32_t begin, uint32_t end) {
        for (uint32_t j = begin; j < end; ++j) {
            x.push_back(cloud[j].x);
            y.push_back(cloud[j].y);
            z.push_back(cloud[j].z);
            id.push_back(j);
        }
    }
};

// Adds the points of the cells at chessboard distance exactly `ring` from `c` that lie within
// sqrt(r2) of p to `near`.
void addRing(const CellGrid &grid, const Eigen::Array3i &c, int ring, const Eigen::Vector3f &p, float r2,
             std::vector<std::pair<float, uint32_t>> &near) {
    const Cloud &cloud = grid.sorted();
    for (int dz = -ring; dz <= ring; ++dz)
        for (int dy = -ring; dy <= ring; ++dy)
            for (int dx = -ring; dx <= ring; ++dx) {
                if (std::max({std::abs(dx), std::abs(dy), std::abs(dz)}) != ring) continue;
                uint32_t begin, end;
                if (!grid.find(c.x() + dx, c.y() + dy, c.z() + dz, begin, end)) continue;
                for (uint32_t j = begin; j < end; ++j) {
                    const float d2 = (cloud[j].getVector3fMap() - p).squaredNorm();
                    if (d2 <= r2) near.push_back({d2, j});
                }
            }
}

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
    // Cells of the radius hold every neighbour within the 3 x 3 x 3 cells around a point's own.
    // In a cloud so dense that they hold many times more points than the cap, smaller cells are
    // searched ring by ring instead, until the nearest max_neighbours are certain: a point within
    // ring R * cell of p is found by the time ring R has been searched. About k / 2 points per
    // cell leaves k within one cell's side of most points (a surface puts about 2.4 times a
    // cell's count within that distance).
    const double target = std::max(4.0, maxNeighbours / 2.0);
    auto grid = std::make_unique<CellGrid>(finite, radius);
    const double perCell = grid->pointsPerCell();
    if (perCell > 4 * target) grid = std::make_unique<CellGrid>(finite, radius * float(std::sqrt(target / perCell)));

    const Cloud &cloud = grid->sorted();
    const float cell = grid->cell(), r2 = radius * radius, c2 = cell * cell;
    const int maxRing = cell >= radius ? 1 : int(std::ceil(radius / cell));
    const auto &runs = grid->runs();
#pragma omp parallel
    {
        Scratch s;
#pragma omp for schedule(dynamic, 16)
        for (size_t r = 0; r < runs.size(); ++r) {
            const Eigen::Array3i c = grid->cellOf(runs[r]);
            s.clear();
            for (int dz = -1; dz <= 1; ++dz)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        uint32_t begin, end;
                        if (grid->find(c.x() + dx, c.y() + dy, c.z() + dz, begin, end)) s.add(cloud, begin, end);
                    }
            for (uint32_t i = runs[r].begin; i < runs[r].end; ++i) {
                const Eigen::Vector3f p = cloud[i].getVector3fMap();
                s.near.clear();
                size_t certain = 0;  // neighbours within one cell's side, all of which are found
                for (size_t j = 0; j < s.id.size(); ++j) {
                    const float dx = s.x[j] - p.x(), dy = s.y[j] - p.y(), dz = s.z[j] - p.z();
                    const float d2 = dx * dx + dy * dy + dz * dz;
                    if (d2 <= r2) {
                        s.near.push_back({d2, s.id[j]});
                        certain += d2 <= c2;
                    }
                }
                for (int ring = 2; ring <= maxRing && certain < maxNeighbours; ++ring) {
                    addRing(*grid, c, ring, p, r2, s.near);
                    const float reach = float(ring) * cell;
                    certain = size_t(std::count_if(s.near.begin(), s.near.end(),
                                                   [&](const auto &e) { return e.first <= reach * reach; }));
                }
                if (s.near.size() > maxNeighbours)
                    std::nth_element(s.near.begin(), s.near.begin() + maxNeighbours, s.near.end());
                s.nn.resize(std::min<size_t>(s.near.size(), maxNeighbours));
                for (size_t k = 0; k < s.nn.size(); ++k) s.nn[k] = pcl::index_t(s.near[k].second);
                Eigen::Vector3f normal;
                float curvature;
                const size_t target = sourceIndex[grid->source(i)];
                if (fitNormal(cloud, s.nn, p, viewpoint, normal, curvature)) out.set(target, normal, curvature);
                else out.setMissing(target);
            }
        }
    }
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
        if (cloud->count > uint64_t(std::numeric_limits<int32_t>::max()))
            throw ShimError(CG_BAD_INPUT, "the cloud has more points than normal estimation indexes (2^31 - 1)");
        const Eigen::Vector3f eye(viewpoint[0], viewpoint[1], viewpoint[2]);
        if (!eye.allFinite()) throw ShimError(CG_BAD_INPUT, "the viewpoint is not finite");
        const Output out{normals, curvature};
        if (cloud->count == 0) return;
        if (cloud->height > 1) organizedNormals(*cloud, radius, max_neighbours, eye, out);
        else unorganizedNormals(*cloud, radius, max_neighbours, eye, out);
    });
}
