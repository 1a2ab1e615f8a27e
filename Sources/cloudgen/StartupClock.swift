import Foundation

/// What a command's process spent before the command began: the kernel starting it, the dynamic
/// loader, the Swift runtime, parsing the arguments. The kernel records a process's start in 10 ms
/// ticks only, so this is read as the process's CPU time so far (CLOCK_PROCESS_CPUTIME_ID), which
/// is its wall time while it has one thread and its files are in the page cache, as here.
enum StartupClock {
    static func milliseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return (Double(now.tv_sec) * 1e6 + Double(now.tv_nsec) / 1e3).rounded() / 1e3
    }
}
