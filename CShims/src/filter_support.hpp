// What the filter entry points share: checking the view they are handed, and the finite points.
#pragma once

#include "shim_internal.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace cloudgen {

// The view's shape and pointers; filters index points with uint32_t (cloudgen reads at most 2^31).
inline void checkFilterInput(const cg_cloud_view *cloud) {
    if (cloud == nullptr) throw ShimError(CG_BAD_INPUT, "no cloud given");
    if (cloud->count > 0 && cloud->positions == nullptr) throw ShimError(CG_BAD_INPUT, "no positions given");
    if (uint64_t(cloud->width) * cloud->height != cloud->count)
        throw ShimError(CG_BAD_INPUT, "width x height does not equal the point count");
    if (cloud->count > UINT32_MAX) throw ShimError(CG_BAD_INPUT, "more points than a filter indexes (2^32 - 1)");
}

inline bool isFinitePoint(const float *p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

// Indices of the points whose three coordinates are finite, in cloud order.
inline std::vector<uint32_t> finitePoints(const cg_cloud_view &cloud) {
    std::vector<uint32_t> points;
    points.reserve(cloud.count);
    for (uint64_t i = 0; i < cloud.count; ++i)
        if (isFinitePoint(cloud.positions + 3 * i)) points.push_back(uint32_t(i));
    return points;
}

// A value for a message: %g with `digits` significant digits.
inline std::string number(double value, int digits = 3) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    return text;
}

}  // namespace cloudgen
