// Exact neighbour queries for the outlier filters (statistical and radius), shared by
// filter_neighbours.cpp and filter_outliers.cpp.
//
// PCL's StatisticalOutlierRemoval and RadiusOutlierRemoval ask a FLANN kd-tree for each point's
// neighbours one query at a time, on one thread. This index answers the same questions exactly
// (the same float squared distances, computed as FLANN's L2_Simple computes them), but for a
// whole leaf of neighbouring points at once: the points near a leaf are gathered once, every
// query of the leaf is checked against that small contiguous set, and the leaves run in parallel
// (one thread per core). A query whose answer the gathered set cannot prove falls back to a full
// tree search, so the answers never depend on the batching.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cloudgen {

class NeighbourIndex {
public:
    // Indexes positions[3 * points[i] ...] for every i; those points must be finite. Results are
    // reported per entry of `points`, in its order.
    NeighbourIndex(const float *positions, const std::vector<uint32_t> &points);

    size_t size() const { return id_.size(); }

    // PCL's statistical-outlier statistic: for each point, the mean of the square roots of the
    // squared distances to its k nearest other points (the search returns k + 1 points, the
    // first being the point itself at distance 0; the next k are summed, nearest first, in
    // double, then divided by k and rounded to float). Needs size() > k.
    void meanNeighbourDistances(int k, float *out) const;

    // For each point, whether at least `needed` points (itself included) lie within `radius`:
    // a squared float distance d counts when double(d) <= radius * radius, as PCL compares them.
    void hasNeighbours(double radius, int needed, uint8_t *out) const;

private:
    struct Box {
        float lo[3];
        float hi[3];
    };
    struct Node {
        Box box;
        // Leaves: the points [begin, end) in index order. Inner nodes: children left and right.
        uint32_t begin, end;
        uint32_t left, right;
        uint32_t parent;
        bool leaf;
    };
    struct Range {
        uint32_t begin, end;
    };

    uint32_t build(const std::vector<uint64_t> &codes, uint32_t begin, uint32_t end, uint32_t parent);
    void gather(const Box &region, uint32_t skipLeaf, std::vector<Range> &ranges) const;
    void searchAll(const float q[3], size_t want, float bound, float *best, size_t &found) const;
    float searchRadius(uint32_t leaf, int k) const;

    // The points in Morton order, one array per axis so that distance loops vectorize.
    std::vector<float> x_, y_, z_;
    // For each point in Morton order, its entry in the caller's `points`.
    std::vector<uint32_t> id_;
    std::vector<Node> nodes_;
    std::vector<uint32_t> leaves_;
};

}  // namespace cloudgen
