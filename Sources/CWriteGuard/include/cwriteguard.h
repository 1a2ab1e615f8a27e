/*
 * What happens to half-written outputs when a signal ends cloudgen (Sources/SafeIO/AtomicFile.swift).
 *
 * Every output is written under a temporary name `.NAME.tmp-PID-RANDOM` (a staged folder:
 * `.NAME.partial-PID-RANDOM`) in a folder that Swift registers here before creating it. A signal
 * that ends the process (SIGINT, SIGTERM, SIGHUP) while a write is under way removes every entry
 * of this process in those folders, prints one `cloudgen: ` line and exits 3; outside a write it
 * ends the process as it would have anyway. The handler only uses async-signal-safe calls
 * (open, getdents64, unlinkat, write, _exit) on fixed buffers: no allocation, no stdio.
 *
 * cwg_install also ignores SIGPIPE and SIGXFSZ, so that a closed pipe or `ulimit -f` makes
 * write() fail with EPIPE or EFBIG (an I/O error cloudgen reports) instead of killing it silently.
 */
#ifndef CWRITEGUARD_H
#define CWRITEGUARD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the handlers; once per process (later calls do nothing). */
void cwg_install(void);

/* Registers a folder temporaries are created in (kept for the life of the process).
 * Returns 0, or -1 when the table is full or the path too long (the write goes on unguarded). */
int32_t cwg_watch_folder(const char *folder);

/* A write begins or ends; `subject` (shortened and escaped by the caller) names the output in
 * the line a signal prints. Writes nest: the handler acts while any is under way, and the end
 * of an inner one gives back the outer one's subject (NULL when none is left). */
void cwg_write_begin(const char *subject);
void cwg_write_end(const char *outer_subject);

/* Renames outputs into place: a signal meanwhile is held until cwg_commit_end, which then, if
 * the renames succeeded, ends the process by it (the outputs are complete, nothing is removed);
 * after a failed commit (rolled back) the caller's error stands. */
void cwg_commit_begin(void);
void cwg_commit_end(int32_t succeeded);

#ifdef __cplusplus
}
#endif

#endif
