// cg_concave_hull_2d: PCL's ConcaveHull (qhull's Delaunay triangulation, alpha shape) of the floor
// points `cloudgen measure` saw, for the floor area of a room whose walls do not close.
#include "shim_internal.hpp"

#include <pcl/point_cloud.h>
#include <pcl/point_types.h>
#include <pcl/surface/concave_hull.h>

#include <cmath>

using cloudgen::ShimError;

extern "C" int32_t cg_concave_hull_2d(const float *points, uint64_t count, double alpha, float *outline,
                                      uint64_t capacity, uint64_t *vertex_count, cg_status *status) {
    return cloudgen::guarded(status, [&] {
        if (vertex_count == nullptr || (count > 0 && points == nullptr)) throw ShimError(CG_BAD_INPUT, "no buffers given");
        if (!std::isfinite(alpha) || alpha <= 0) throw ShimError(CG_BAD_INPUT, "alpha must be more than 0");
        *vertex_count = 0;
        if (count < 3) return;
        auto input = std::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
        input->reserve(count);
        for (uint64_t i = 0; i < count; ++i) {
            const float x = points[2 * i], y = points[2 * i + 1];
            if (std::isfinite(x) && std::isfinite(y)) input->push_back(pcl::PointXYZ(x, y, 0));
        }
        if (input->size() < 3) return;
        pcl::ConcaveHull<pcl::PointXYZ> hull;
        hull.setAlpha(alpha);
        hull.setDimension(2);
        hull.setInputCloud(input);
        pcl::PointCloud<pcl::PointXYZ> vertices;
        std::vector<pcl::Vertices> polygons;
        hull.reconstruct(vertices, polygons);
        // Several polygons when the points fall apart into islands: the room is the largest.
        double bestArea = 0;
        const pcl::Vertices *best = nullptr;
        for (const auto &polygon : polygons) {
            double twice = 0;
            const size_t n = polygon.vertices.size();
            for (size_t i = 0; i < n; ++i) {
                const auto &a = vertices[polygon.vertices[i]], &b = vertices[polygon.vertices[(i + 1) % n]];
                twice += double(a.x) * b.y - double(b.x) * a.y;
            }
            if (std::abs(twice) / 2 > bestArea) bestArea = std::abs(twice) / 2, best = &polygon;
        }
        if (best == nullptr) return;
        if (best->vertices.size() > capacity) throw ShimError(CG_BAD_INPUT, "the outline has more vertices than the buffer holds");
        if (best->vertices.size() > 0 && outline == nullptr) throw ShimError(CG_BAD_INPUT, "no outline buffer given");
        for (size_t i = 0; i < best->vertices.size(); ++i) {
            outline[2 * i] = vertices[best->vertices[i]].x;
            outline[2 * i + 1] = vertices[best->vertices[i]].y;
        }
        *vertex_count = best->vertices.size();
    });
}
