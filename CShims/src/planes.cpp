// cg_plane_cloud_*, cg_segment_plane and cg_fit_plane: PCL's sample consensus over the working set
// of `cloudgen measure`, which peels planes one after another (floor, ceiling, walls) and refits
// each many times for its bootstrap, so the points are copied into PCL's container once.
#include "filter_support.hpp"

#include <pcl/point_cloud.h>
#include <pcl/point_types.h>
#include <pcl/sample_consensus/method_types.h>
#include <pcl/sample_consensus/model_types.h>
#include <pcl/sample_consensus/sac_model_plane.h>
#include <pcl/segmentation/sac_segmentation.h>

#include <cmath>
#include <memory>

struct cg_plane_cloud {
    pcl::PointCloud<pcl::PointXYZ>::Ptr points;
};

namespace {

using cloudgen::ShimError;

std::shared_ptr<pcl::Indices> indexList(const cg_plane_cloud *cloud, const uint32_t *indices, uint64_t count) {
    if (cloud == nullptr) throw ShimError(CG_BAD_INPUT, "no cloud given");
    if (count > 0 && indices == nullptr) throw ShimError(CG_BAD_INPUT, "no indices given");
    const uint64_t size = cloud->points->size();
    auto list = std::make_shared<pcl::Indices>(count);
    for (uint64_t i = 0; i < count; ++i) {
        if (indices[i] >= size) throw ShimError(CG_BAD_INPUT, "a point index is out of range");
        (*list)[i] = pcl::index_t(indices[i]);
    }
    return list;
}

bool isPositive(double value) { return std::isfinite(value) && value > 0; }

}  // namespace

extern "C" int32_t cg_plane_cloud_create(const cg_cloud_view *cloud, cg_plane_cloud **out, cg_status *status) {
    return cloudgen::guarded(status, [&] {
        cloudgen::checkFilterInput(cloud);
        if (out == nullptr) throw ShimError(CG_BAD_INPUT, "no handle given");
        auto points = std::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
        points->resize(cloud->count);
        for (uint64_t i = 0; i < cloud->count; ++i) {
            pcl::PointXYZ &p = (*points)[i];
            p.x = cloud->positions[3 * i];
            p.y = cloud->positions[3 * i + 1];
            p.z = cloud->positions[3 * i + 2];
        }
        points->width = uint32_t(cloud->count);
        points->height = 1;
        points->is_dense = false;
        *out = new cg_plane_cloud{points};
    });
}

extern "C" void cg_plane_cloud_free(cg_plane_cloud *cloud) { delete cloud; }

extern "C" int32_t cg_segment_plane(const cg_plane_cloud *cloud, const uint32_t *indices, uint64_t count,
                                    const cg_plane_search *search, double coefficients[4], uint32_t *inliers,
                                    uint64_t *inlier_count, cg_status *status) {
    return cloudgen::guarded(status, [&] {
        if (search == nullptr || coefficients == nullptr || inlier_count == nullptr || (count > 0 && inliers == nullptr))
            throw ShimError(CG_BAD_INPUT, "no search, coefficient or inlier buffer given");
        if (!isPositive(search->distance)) throw ShimError(CG_BAD_INPUT, "the inlier distance must be more than 0");
        if (search->max_iterations < 1) throw ShimError(CG_BAD_INPUT, "at least one iteration is needed");
        if (!(search->probability > 0 && search->probability < 1))
            throw ShimError(CG_BAD_INPUT, "the probability must lie between 0 and 1");
        auto list = indexList(cloud, indices, count);
        *inlier_count = 0;
        if (count < 3) return;

        pcl::SACSegmentation<pcl::PointXYZ> segmentation;
        segmentation.setOptimizeCoefficients(true);
        // RANSAC: PCL 1.13's MSAC finds no plane with the axis-constrained models (its final distance
        // check reads an empty distance list), and RANSAC's count is what the refit improves on anyway.
        segmentation.setMethodType(pcl::SAC_RANSAC);
        segmentation.setDistanceThreshold(search->distance);
        segmentation.setMaxIterations(search->max_iterations);
        segmentation.setProbability(search->probability);
        switch (search->orientation) {
        case CG_PLANE_ANY: segmentation.setModelType(pcl::SACMODEL_PLANE); break;
        case CG_PLANE_ACROSS_AXIS: segmentation.setModelType(pcl::SACMODEL_PERPENDICULAR_PLANE); break;
        case CG_PLANE_ALONG_AXIS: segmentation.setModelType(pcl::SACMODEL_PARALLEL_PLANE); break;
        default: throw ShimError(CG_BAD_INPUT, "unknown plane orientation");
        }
        if (search->orientation != CG_PLANE_ANY) {
            if (!isPositive(search->max_angle)) throw ShimError(CG_BAD_INPUT, "the angle must be more than 0");
            const Eigen::Vector3f axis(search->axis[0], search->axis[1], search->axis[2]);
            if (!axis.allFinite() || std::abs(axis.norm() - 1) > 1e-3f) throw ShimError(CG_BAD_INPUT, "the axis must be a unit vector");
            segmentation.setAxis(axis);
            segmentation.setEpsAngle(search->max_angle);
        }
        segmentation.setInputCloud(cloud->points);
        segmentation.setIndices(list);
        pcl::PointIndices found;
        pcl::ModelCoefficients model;
        segmentation.segment(found, model);
        if (found.indices.size() < 3 || model.values.size() != 4) return;
        for (int i = 0; i < 4; ++i) coefficients[i] = model.values[i];
        for (size_t i = 0; i < found.indices.size(); ++i) inliers[i] = uint32_t(found.indices[i]);
        *inlier_count = found.indices.size();
    });
}

extern "C" int32_t cg_fit_plane(const cg_plane_cloud *cloud, const uint32_t *indices, uint64_t count,
                                const double reference[4], double coefficients[4], cg_status *status) {
    return cloudgen::guarded(status, [&] {
        if (reference == nullptr || coefficients == nullptr) throw ShimError(CG_BAD_INPUT, "no plane buffers given");
        if (count < 4) throw ShimError(CG_BAD_INPUT, "a plane fit needs at least 4 points");
        auto list = indexList(cloud, indices, count);
        pcl::SampleConsensusModelPlane<pcl::PointXYZ> model(cloud->points, *list);
        const Eigen::VectorXf start = Eigen::Vector4f(float(reference[0]), float(reference[1]), float(reference[2]),
                                                      float(reference[3]));
        Eigen::VectorXf fitted;
        model.optimizeModelCoefficients(*list, start, fitted);
        if (fitted.size() != 4 || !fitted.allFinite()) throw ShimError(CG_BAD_INPUT, "no plane fits these points");
        const double sign = fitted.head<3>().dot(start.head<3>()) < 0 ? -1 : 1;
        for (int i = 0; i < 4; ++i) coefficients[i] = sign * double(fitted[i]);
    });
}
