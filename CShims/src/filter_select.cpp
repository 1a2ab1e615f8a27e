// cg_filter_pass_through_z and cg_filter_crop_box: PCL's PassThrough and CropBox, reporting which
// points they keep.
#include "filter_support.hpp"

#include <pcl/filters/crop_box.h>
#include <pcl/filters/passthrough.h>
#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include <algorithm>

namespace {

using cloudgen::ShimError;

// The one copy of the input: PCL's filters only read their own point containers. is_dense stays
// false so that they check every point for NaN (CropBox keeps a NaN point of a "dense" cloud).
pcl::PointCloud<pcl::PointXYZ>::Ptr toPCL(const cg_cloud_view &view) {
    auto cloud = std::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
    cloud->resize(view.count);
    for (uint64_t i = 0; i < view.count; ++i) {
        pcl::PointXYZ &p = (*cloud)[i];
        p.x = view.positions[3 * i];
        p.y = view.positions[3 * i + 1];
        p.z = view.positions[3 * i + 2];
    }
    cloud->width = uint32_t(view.count);
    cloud->height = 1;
    cloud->is_dense = false;
    return cloud;
}

void report(const pcl::Indices &indices, uint64_t count, uint8_t *keep, uint64_t *kept) {
    std::fill(keep, keep + count, 0);
    for (const auto index : indices) keep[index] = 1;
    if (kept != nullptr) *kept = indices.size();
}

void checkOutputs(const cg_cloud_view *cloud, const uint8_t *keep) {
    cloudgen::checkFilterInput(cloud);
    if (keep == nullptr && cloud->count > 0) throw ShimError(CG_BAD_INPUT, "no keep buffer given");
}

}  // namespace

extern "C" int32_t cg_filter_pass_through_z(const cg_cloud_view *cloud, float min, float max, uint8_t *keep,
                                            uint64_t *kept, cg_status *status) {
    return cloudgen::guarded(status, [&] {
        checkOutputs(cloud, keep);
        if (std::isnan(min) || std::isnan(max) || min > max)
            throw ShimError(CG_BAD_INPUT, "the z limits must be numbers with min <= max");
        pcl::PassThrough<pcl::PointXYZ> filter;
        filter.setInputCloud(toPCL(*cloud));
        filter.setFilterFieldName("z");
        filter.setFilterLimits(min, max);
        pcl::Indices indices;
        filter.filter(indices);
        report(indices, cloud->count, keep, kept);
    });
}

extern "C" int32_t cg_filter_crop_box(const cg_cloud_view *cloud, const float min[3], const float max[3],
                                      uint8_t *keep, uint64_t *kept, cg_status *status) {
    return cloudgen::guarded(status, [&] {
        checkOutputs(cloud, keep);
        if (min == nullptr || max == nullptr) throw ShimError(CG_BAD_INPUT, "no box given");
        for (int a = 0; a < 3; ++a)
            if (!std::isfinite(min[a]) || !std::isfinite(max[a]) || min[a] > max[a])
                throw ShimError(CG_BAD_INPUT, "the box corners must be finite with min <= max on every axis");
        pcl::CropBox<pcl::PointXYZ> filter;
        filter.setInputCloud(toPCL(*cloud));
        filter.setMin(Eigen::Vector4f(min[0], min[1], min[2], 1.0f));
        filter.setMax(Eigen::Vector4f(max[0], max[1], max[2], 1.0f));
        pcl::Indices indices;
        filter.filter(indices);
        report(indices, cloud->count, keep, kept);
    });
}
