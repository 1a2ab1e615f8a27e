// Work split across the cores the process may run on, on threads started for the call and joined
// before it returns.
//
// The shim used OpenMP for this, but libgomp's threads busy-wait for milliseconds after every
// parallel region (its default wait policy, which only the environment of the process can change,
// and only before libgomp starts), in case another region follows. In cloudgen the next thing is
// usually Swift's own threads decoding images, back-projecting or drawing, and the spinning thread
// took the second core from them: in the pipeline benchmark the PCL grabber frame's decode took
// 11.6 ms instead of 6.2 and back-projection 1.2 instead of 0.9. Starting a thread costs tens of
// microseconds, against regions of milliseconds.
#pragma once

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cloudgen {

// The CPUs this process may use (its affinity mask, which `taskset` narrows), at least 1.
inline int coreCount() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

// Indices [0, n) handed out `chunk` at a time to whichever thread asks next.
class ChunkQueue {
public:
    ChunkQueue(size_t n, size_t chunk) : n_(n), chunk_(std::max<size_t>(1, chunk)) {}
    bool next(size_t &begin, size_t &end) {
        begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
        if (begin >= n_) return false;
        end = std::min(n_, begin + chunk_);
        return true;
    }
    size_t chunks() const { return (n_ + chunk_ - 1) / chunk_; }

private:
    std::atomic<size_t> next_{0};
    size_t n_, chunk_;
};

// Runs `worker()` on up to `threads` threads at once, the calling thread among them, and returns
// when all are done; the first exception any of them threw is rethrown here.
template <typename Worker>
void onEveryCore(Worker &&worker, int threads = coreCount()) {
    if (threads <= 1) {
        worker();
        return;
    }
    std::exception_ptr error;
    std::mutex errorLock;
    auto run = [&] {
        try {
            worker();
        } catch (...) {
            std::lock_guard<std::mutex> lock(errorLock);
            if (!error) error = std::current_exception();
        }
    };
    std::vector<std::thread> helpers;
    helpers.reserve(size_t(threads - 1));
    for (int t = 1; t < threads; ++t) helpers.emplace_back(run);
    run();
    for (auto &helper : helpers) helper.join();
    if (error) std::rethrow_exception(error);
}

// Calls body(i, state) for every i in [0, n), `chunk` indices at a time on every core; each thread
// makes its own scratch `state` with makeState() first. No more threads than chunks are started.
template <typename MakeState, typename Body>
void parallelFor(size_t n, size_t chunk, MakeState &&makeState, Body &&body) {
    ChunkQueue queue(n, chunk);
    onEveryCore(
        [&] {
            auto state = makeState();
            size_t begin, end;
            while (queue.next(begin, end))
                for (size_t i = begin; i < end; ++i) body(i, state);
        },
        int(std::min<size_t>(size_t(coreCount()), queue.chunks())));
}

}  // namespace cloudgen
