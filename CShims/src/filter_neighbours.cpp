// NeighbourIndex: exact k-nearest and radius queries, batched per leaf and run in parallel.
//
// Layout: the points are sorted by Morton code (21 bits per axis over the bounding box), and a
// binary tree splits each Morton range at its highest differing bit, down to leaves of at most
// kLeafSize points (or of points sharing one code). Every node therefore covers a contiguous
// range of the sorted points, and the tree is an octree-aligned kd-tree whose boxes are the
// actual bounds of their points.
//
// Exactness: squared distances are float ((dx*dx + dy*dy) + dz*dz) with d = query - point,
// exactly the operations of FLANN's L2_Simple that PCL's KdTreeFLANN uses; this file is built
// with -ffp-contract=off so no fused multiply-add changes a bit. A k-nearest answer from a
// leaf's gathered set is accepted only when no point outside the gathered region can be nearer
// than its k-th distance; otherwise that query is searched again over the whole tree.
#include "filter_neighbours.hpp"
#include "parallel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace cloudgen {

namespace {

// Leaves this small keep the gathered region tight around the queries; larger ones amortize the
// gathering over more queries. 16 and 32 were equally fast on the PCL grabber frames for k = 20.
constexpr uint32_t kLeafSize = 16;
constexpr float kInfinity = std::numeric_limits<float>::infinity();

// 8 bits spread to every third bit of 24: the building block of a 3-axis Morton code.
const std::array<uint64_t, 256> &spreadTable() {
    static const std::array<uint64_t, 256> table = [] {
        std::array<uint64_t, 256> t{};
        for (uint32_t v = 0; v < 256; ++v)
            for (int bit = 0; bit < 8; ++bit)
                if (v & (1u << bit)) t[v] |= uint64_t(1) << (3 * bit);
        return t;
    }();
    return table;
}

// 21 bits spread to every third bit of 63.
inline uint64_t spread21(uint32_t v) {
    const auto &t = spreadTable();
    return t[v & 0xff] | t[(v >> 8) & 0xff] << 24 | t[(v >> 16) & 0x1f] << 48;
}

// Sorts keys ascending, carrying values along: least-significant-digit radix sort, 11 bits per
// pass, skipping passes whose digit is the same for every key.
void radixSort(std::vector<uint64_t> &keys, std::vector<uint32_t> &values) {
    constexpr int kBits = 11;
    constexpr size_t kBuckets = size_t(1) << kBits;
    const size_t n = keys.size();
    std::vector<uint64_t> keyTemp(n);
    std::vector<uint32_t> valueTemp(n);
    std::vector<size_t> count(kBuckets);
    for (int shift = 0; shift < 64; shift += kBits) {
        std::fill(count.begin(), count.end(), 0);
        for (uint64_t key : keys) ++count[(key >> shift) & (kBuckets - 1)];
        if (std::any_of(count.begin(), count.end(), [n](size_t c) { return c == n; })) continue;
        size_t offset = 0;
        for (size_t &c : count) {
            const size_t start = offset;
            offset += c;
            c = start;
        }
        for (size_t i = 0; i < n; ++i) {
            const size_t slot = count[(keys[i] >> shift) & (kBuckets - 1)]++;
            keyTemp[slot] = keys[i];
            valueTemp[slot] = values[i];
        }
        keys.swap(keyTemp);
        values.swap(valueTemp);
    }
}

// Inserts d into best[0..found), kept sorted ascending and at most `want` long.
inline void insertSorted(float *best, size_t &found, size_t want, float d) {
    size_t i = found < want ? found++ : want - 1;
    while (i > 0 && best[i - 1] > d) {
        best[i] = best[i - 1];
        --i;
    }
    best[i] = d;
}

// The `want` smallest of values[0..n), ascending, into out. Few values (the usual case after the
// cutoff) are ranked by counting, which has no data-dependent branches to mispredict (sorting a
// few dozen floats with std::sort cost more than finding them); many are partitioned first.
void selectSmallest(float *values, size_t n, float *out, size_t want) {
    if (n > 64) {
        if (n > want) std::nth_element(values, values + (want - 1), values + n);
        std::sort(values, values + want);
        std::copy(values, values + want, out);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        const float v = values[i];
        // Equal values rank by position, so that every rank is taken exactly once.
        size_t rank = 0;
        for (size_t j = 0; j < i; ++j) rank += values[j] <= v;
        for (size_t j = i + 1; j < n; ++j) rank += values[j] < v;
        if (rank < want) out[rank] = v;
    }
}

// FLANN's L2_Simple on 3 floats, operation for operation.
inline float squaredDistance(float qx, float qy, float qz, float px, float py, float pz) {
    const float dx = qx - px, dy = qy - py, dz = qz - pz;
    float d = dx * dx;
    d += dy * dy;
    d += dz * dz;
    return d;
}

}  // namespace

NeighbourIndex::NeighbourIndex(const float *positions, const std::vector<uint32_t> &points) {
    const size_t n = points.size();
    if (n == 0) return;
    float lo[3] = {kInfinity, kInfinity, kInfinity}, hi[3] = {-kInfinity, -kInfinity, -kInfinity};
    for (uint32_t p : points)
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], positions[3 * size_t(p) + a]);
            hi[a] = std::max(hi[a], positions[3 * size_t(p) + a]);
        }
    // One scale for all axes keeps Morton cells cubic.
    const double extent = std::max({double(hi[0]) - lo[0], double(hi[1]) - lo[1], double(hi[2]) - lo[2]});
    const double scale = extent > 0 ? double((1u << 21) - 1) / extent : 0;

    std::vector<uint64_t> codes(n);
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) {
        const float *p = positions + 3 * size_t(points[i]);
        uint64_t code = 0;
        for (int a = 0; a < 3; ++a) {
            const uint32_t cell = std::min<uint32_t>(uint32_t((double(p[a]) - lo[a]) * scale), (1u << 21) - 1);
            code |= spread21(cell) << a;
        }
        codes[i] = code;
        order[i] = uint32_t(i);
    }
    radixSort(codes, order);

    x_.resize(n);
    y_.resize(n);
    z_.resize(n);
    id_ = std::move(order);
    for (size_t i = 0; i < n; ++i) {
        const float *p = positions + 3 * size_t(points[id_[i]]);
        x_[i] = p[0];
        y_[i] = p[1];
        z_[i] = p[2];
    }
    nodes_.reserve(2 * (n / kLeafSize + 1));
    build(codes, 0, uint32_t(n), 0);
}

uint32_t NeighbourIndex::build(const std::vector<uint64_t> &codes, uint32_t begin, uint32_t end, uint32_t parent) {
    const uint32_t me = uint32_t(nodes_.size());
    nodes_.push_back(Node{});
    Node node{};
    node.begin = begin;
    node.end = end;
    node.parent = parent;
    if (end - begin <= kLeafSize || codes[begin] == codes[end - 1]) {
        node.leaf = true;
        for (int a = 0; a < 3; ++a) {
            node.box.lo[a] = kInfinity;
            node.box.hi[a] = -kInfinity;
        }
        for (uint32_t i = begin; i < end; ++i) {
            const float p[3] = {x_[i], y_[i], z_[i]};
            for (int a = 0; a < 3; ++a) {
                node.box.lo[a] = std::min(node.box.lo[a], p[a]);
                node.box.hi[a] = std::max(node.box.hi[a], p[a]);
            }
        }
        leaves_.push_back(me);
    } else {
        // Split where the highest bit in which the range's codes differ turns from 0 to 1.
        const uint64_t bit = uint64_t(1) << (63 - __builtin_clzll(codes[begin] ^ codes[end - 1]));
        const uint32_t split = uint32_t(
            std::partition_point(codes.begin() + begin, codes.begin() + end, [bit](uint64_t c) { return !(c & bit); }) -
            codes.begin());
        node.leaf = false;
        node.left = build(codes, begin, split, me);
        node.right = build(codes, split, end, me);
        const Box &l = nodes_[node.left].box, &r = nodes_[node.right].box;
        for (int a = 0; a < 3; ++a) {
            node.box.lo[a] = std::min(l.lo[a], r.lo[a]);
            node.box.hi[a] = std::max(l.hi[a], r.hi[a]);
        }
    }
    nodes_[me] = node;
    return me;
}

// Appends the point ranges of every leaf (but `skipLeaf`) whose box meets `region`, merging
// ranges that follow each other.
void NeighbourIndex::gather(const Box &region, uint32_t skipLeaf, std::vector<Range> &ranges) const {
    uint32_t stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node &node = nodes_[stack[--top]];
        if (node.box.lo[0] > region.hi[0] || node.box.hi[0] < region.lo[0] || node.box.lo[1] > region.hi[1] ||
            node.box.hi[1] < region.lo[1] || node.box.lo[2] > region.hi[2] || node.box.hi[2] < region.lo[2])
            continue;
        if (!node.leaf) {
            // Right first, so that leaves come off the stack in Morton order and ranges merge.
            stack[top++] = node.right;
            stack[top++] = node.left;
            continue;
        }
        if (&node == &nodes_[skipLeaf]) continue;
        if (!ranges.empty() && ranges.back().end == node.begin)
            ranges.back().end = node.end;
        else
            ranges.push_back({node.begin, node.end});
    }
}

// The `want` nearest points to q over the whole tree, nearest first, into best[0..found):
// only points not farther than `bound` (an upper bound of the want-th distance, or infinity).
void NeighbourIndex::searchAll(const float q[3], size_t want, float bound, float *best, size_t &found) const {
    found = 0;
    // Box distances are computed in float too: a node is skipped only when it is farther than
    // the current limit by more than rounding could account for.
    auto boxDistance = [q](const Box &b) {
        float d = 0;
        for (int a = 0; a < 3; ++a) {
            const float below = b.lo[a] - q[a], above = q[a] - b.hi[a];
            const float gap = below > 0 ? below : above > 0 ? above : 0;
            d += gap * gap;
        }
        return d;
    };
    auto limit = [&] { return found == want ? best[want - 1] : bound; };
    uint32_t stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node &node = nodes_[stack[--top]];
        if (boxDistance(node.box) > limit() * (1 + 1e-5f)) continue;
        if (node.leaf) {
            for (uint32_t i = node.begin; i < node.end; ++i) {
                const float d = squaredDistance(q[0], q[1], q[2], x_[i], y_[i], z_[i]);
                if (found < want ? d <= bound : d < best[want - 1]) insertSorted(best, found, want, d);
            }
            continue;
        }
        // Nearer child on top of the stack, so it is searched first and tightens the limit.
        const float dl = boxDistance(nodes_[node.left].box), dr = boxDistance(nodes_[node.right].box);
        stack[top++] = dl <= dr ? node.right : node.left;
        stack[top++] = dl <= dr ? node.left : node.right;
    }
}

// How far around a leaf to gather for k neighbours: the radius a disc holding k + 1 points has
// at the point density of the leaf's smallest ancestor with a few times k + 1 points (scans are
// surfaces, so density is points per area of the box's two largest sides), with a margin.
float NeighbourIndex::searchRadius(uint32_t leaf, int k) const {
    uint32_t n = leaf;
    while (uint64_t(nodes_[n].end - nodes_[n].begin) < 4 * (uint64_t(k) + 1) && n != 0) n = nodes_[n].parent;
    const Node &node = nodes_[n];
    float side[3];
    for (int a = 0; a < 3; ++a) side[a] = node.box.hi[a] - node.box.lo[a];
    std::sort(side, side + 3);
    const double area = double(side[1]) * side[2];
    const double r = std::sqrt((double(k) + 1) * area / (M_PI * double(node.end - node.begin)));
    return float(1.3 * r);
}

void NeighbourIndex::meanNeighbourDistances(int k, float *out) const {
    const size_t want = size_t(k) + 1;
    constexpr size_t kMaxRings = 64;
    ChunkQueue queue(leaves_.size(), 8);
    onEveryCore([&] {
        std::vector<Range> ranges;
        // The gathered points, sorted into rings by their distance to the leaf's centre (one
        // array per axis, so that distance loops vectorize). A query reads rings outward and
        // stops at the first ring the triangle inequality puts beyond its k-th neighbour.
        std::vector<float> cx, cy, cz, distances, nearby;
        std::vector<uint32_t> ring;
        size_t ringStart[kMaxRings + 1];
        std::vector<float> best(want);
        // The previous query's k-th squared distance, with room to spare: neighbouring points
        // have similar ones, so only the candidates within it are worth sorting.
        float cutoff = kInfinity;
        size_t begin, end;
        while (queue.next(begin, end)) {
            for (size_t li = begin; li < end; ++li) {
                const uint32_t leafIndex = leaves_[li];
                const Node &leaf = nodes_[leafIndex];
                const float reach = searchRadius(leafIndex, k);
                Box region;
                double centre[3], halfDiagonal = 0;
                for (int a = 0; a < 3; ++a) {
                    region.lo[a] = leaf.box.lo[a] - reach;
                    region.hi[a] = leaf.box.hi[a] + reach;
                    centre[a] = 0.5 * (double(leaf.box.lo[a]) + leaf.box.hi[a]);
                    const double half = 0.5 * (double(leaf.box.hi[a]) - leaf.box.lo[a]);
                    halfDiagonal += half * half;
                }
                ranges.clear();
                ranges.push_back({leaf.begin, leaf.end});
                gather(region, leafIndex, ranges);

                // Rings a third of the gathering reach wide (the region's corners fall in the last).
                const double width = std::max(double(reach) / 3, (std::sqrt(halfDiagonal) + reach) / (kMaxRings - 1));
                const double perWidth = 1 / width;
                size_t total = 0;
                for (const Range &r : ranges) total += r.end - r.begin;
                ring.resize(total);
                std::fill(ringStart, ringStart + kMaxRings + 1, 0);
                size_t c = 0;
                for (const Range &r : ranges)
                    for (uint32_t i = r.begin; i < r.end; ++i, ++c) {
                        const double dx = x_[i] - centre[0], dy = y_[i] - centre[1], dz = z_[i] - centre[2];
                        const double fromCentre = std::sqrt(dx * dx + dy * dy + dz * dz);
                        ring[c] = uint32_t(std::min(double(kMaxRings - 1), std::floor(fromCentre * perWidth)));
                        ++ringStart[ring[c] + 1];
                    }
                for (size_t i = 1; i <= kMaxRings; ++i) ringStart[i] += ringStart[i - 1];
                cx.resize(total);
                cy.resize(total);
                cz.resize(total);
                distances.resize(total);
                nearby.resize(total);
                {
                    size_t next[kMaxRings];
                    std::copy(ringStart, ringStart + kMaxRings, next);
                    c = 0;
                    for (const Range &r : ranges)
                        for (uint32_t i = r.begin; i < r.end; ++i, ++c) {
                            const size_t slot = next[ring[c]]++;
                            cx[slot] = x_[i];
                            cy[slot] = y_[i];
                            cz[slot] = z_[i];
                        }
                }

                for (uint32_t qi = leaf.begin; qi < leaf.end; ++qi) {
                    const float q[3] = {x_[qi], y_[qi], z_[qi]};
                    const double ox = q[0] - centre[0], oy = q[1] - centre[1], oz = q[2] - centre[2];
                    const double fromCentre = std::sqrt(ox * ox + oy * oy + oz * oz);
                    // Collects every candidate within `limit` (squared), reading rings outward until
                    // |p - q| >= |p - c| - |q - c| rules the rest out (1e-5: float rounding).
                    auto collect = [&](float limit) {
                        size_t n = 0;
                        for (size_t i = 0; i < kMaxRings; ++i) {
                            const double below = double(i) * width - fromCentre;
                            if (below > 0 && below * below > double(limit) * (1 + 1e-5)) break;
                            const size_t b = ringStart[i], e = ringStart[i + 1];
                            float *d = distances.data();
                            for (size_t j = b; j < e; ++j) d[j - b] = squaredDistance(q[0], q[1], q[2], cx[j], cy[j], cz[j]);
                            for (size_t j = 0; j < e - b; ++j) {
                                nearby[n] = d[j];
                                n += d[j] <= limit;
                            }
                        }
                        return n;
                    };
                    size_t n = collect(cutoff);
                    if (n < want && cutoff != kInfinity) n = collect(kInfinity);
                    size_t found = std::min(n, want);
                    selectSmallest(nearby.data(), n, best.data(), found);
                    if (found == want) cutoff = best[want - 1] * 1.5f;

                    // Every point outside the region is farther than q's distance to the region's
                    // boundary; if the want-th distance is within it, the gathered answer is exact.
                    float margin = kInfinity;
                    for (int a = 0; a < 3; ++a) margin = std::min({margin, q[a] - region.lo[a], region.hi[a] - q[a]});
                    if (found < want || !(best[want - 1] <= margin * margin * (1 - 1e-5f)))
                        searchAll(q, want, found == want ? best[want - 1] : kInfinity, best.data(), found);

                    // PCL: best[0] is the query itself (distance 0); the next k are summed nearest first.
                    double sum = 0.0;
                    for (size_t j = 1; j < want; ++j) sum += std::sqrt(double(best[j]));
                    out[id_[qi]] = static_cast<float>(sum / k);
                }
            }
        }
    });
}

void NeighbourIndex::hasNeighbours(double radius, int needed, uint8_t *out) const {
    const double r2 = radius * radius;
    const double reach = radius * (1 + 1e-6);
    ChunkQueue queue(leaves_.size(), 8);
    onEveryCore([&] {
        std::vector<Range> ranges;
        size_t begin, end;
        while (queue.next(begin, end)) {
            for (size_t li = begin; li < end; ++li) {
                const uint32_t leafIndex = leaves_[li];
                const Node &leaf = nodes_[leafIndex];
                // Every point within `radius` of a point of the leaf lies in the leaf's box grown by
                // the radius; the bounds are rounded outward so that float rounding loses none.
                Box region;
                for (int a = 0; a < 3; ++a) {
                    region.lo[a] = std::nextafter(float(double(leaf.box.lo[a]) - reach), -kInfinity);
                    region.hi[a] = std::nextafter(float(double(leaf.box.hi[a]) + reach), kInfinity);
                }
                ranges.clear();
                ranges.push_back({leaf.begin, leaf.end});
                gather(region, leafIndex, ranges);
                for (uint32_t qi = leaf.begin; qi < leaf.end; ++qi) {
                    const float qx = x_[qi], qy = y_[qi], qz = z_[qi];
                    int count = 0;
                    for (const Range &r : ranges) {
                        for (uint32_t i = r.begin; i < r.end && count < needed; ++i)
                            if (double(squaredDistance(qx, qy, qz, x_[i], y_[i], z_[i])) <= r2) ++count;
                        if (count >= needed) break;
                    }
                    out[id_[qi]] = count >= needed;
                }
            }
        }
    });
}

}  // namespace cloudgen
