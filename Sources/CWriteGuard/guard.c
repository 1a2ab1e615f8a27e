#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cwriteguard.h"

/* A few folders per run (the outputs' folders and the one special files are staged in). */
enum { MAX_FOLDERS = 64, PATH_BYTES = 4096, SUBJECT_BYTES = 320, MAX_DEPTH = 6 };

static char folders[MAX_FOLDERS][PATH_BYTES];
static volatile sig_atomic_t folder_count = 0;
static volatile sig_atomic_t writes = 0;
static volatile sig_atomic_t committing = 0;
static volatile sig_atomic_t held_signal = 0;
/* Two buffers: the handler reads the one `subject_index` names while the other is rewritten. */
static char subjects[2][SUBJECT_BYTES];
static volatile sig_atomic_t subject_index = 0;
/* ".tmp-PID-" and ".partial-PID-", formatted once at install. */
static char tmp_marker[40];
static char partial_marker[40];
static int installed = 0;

static const int guarded[] = {SIGINT, SIGTERM, SIGHUP};

static size_t length(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

static int contains(const char *haystack, const char *needle) {
    size_t n = length(needle), left = length(haystack);
    /* Only where the needle fits: memcmp may read all n bytes whatever it finds first. */
    for (; left >= n; haystack++, left--) {
        if (memcmp(haystack, needle, n) == 0) return 1;
    }
    return 0;
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* What to do with one entry of a folder being swept: returns 1 when it removed something. */
typedef int (*visit_entry)(int folder, const char *child, unsigned char type, int depth);

/* Calls `visit` on every entry of the open folder `fd` but . and .., pass after pass, until a
 * pass removes nothing: unlinking while reading can make getdents skip entries. */
static void sweep(int fd, int depth, visit_entry visit) {
    char buffer[4096];
    for (int pass = 0; pass < 64; pass++) {
        lseek(fd, 0, SEEK_SET);
        int removed = 0;
        long n;
        while ((n = syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
            for (long offset = 0; offset < n;) {
                struct linux_dirent64 *entry = (struct linux_dirent64 *)(buffer + offset);
                offset += entry->d_reclen;
                const char *child = entry->d_name;
                if (strcmp(child, ".") == 0 || strcmp(child, "..") == 0) continue;
                removed |= visit(fd, child, entry->d_type, depth);
            }
        }
        if (!removed) break;
    }
}

static void remove_tree(int parent, const char *name, int depth);

/* Inside a staged folder: everything goes, folders to a bounded depth. */
static int remove_entry(int folder, const char *child, unsigned char type, int depth) {
    if (type == DT_DIR && depth < MAX_DEPTH) {
        remove_tree(folder, child, depth + 1);
    } else {
        unlinkat(folder, child, 0);
    }
    return 1;
}

/* Empties and removes the folder `name` in `parent` (a staged folder), to a bounded depth. */
static void remove_tree(int parent, const char *name, int depth) {
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        sweep(fd, depth, remove_entry);
        close(fd);
    }
    unlinkat(parent, name, AT_REMOVEDIR);
}

/* In a registered folder: this process's temporaries and staged folders, nothing else. */
static int remove_ours(int folder, const char *child, unsigned char type, int depth) {
    (void)type;
    (void)depth;
    if (child[0] != '.') return 0;
    if (contains(child, tmp_marker)) return unlinkat(folder, child, 0) == 0;
    if (contains(child, partial_marker)) {
        remove_tree(folder, child, 1);
        return 1;
    }
    return 0;
}

/* Removes this process's temporaries and staged folders in one registered folder. */
static void clean_folder(const char *folder) {
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    sweep(fd, 0, remove_ours);
    close(fd);
}

static void say(const char *text) {
    size_t n = length(text);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, text, n);
        if (w <= 0) return;
        text += w;
        n -= (size_t)w;
    }
}

static void on_signal(int number) {
    if (committing) {
        held_signal = number;
        return;
    }
    if (writes > 0) {
        for (int i = 0; i < folder_count; i++) clean_folder(folders[i]);
        const char *name = number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "SIGHUP";
        say("cloudgen: ");
        say(subjects[subject_index]);
        say(": interrupted by ");
        say(name);
        say(" while writing; nothing was written\n");
        _exit(3);
    }
    /* Not writing: end as the signal would have without us. */
    signal(number, SIG_DFL);
    raise(number);
}

void cwg_install(void) {
    if (installed) return;
    installed = 1;
    snprintf(tmp_marker, sizeof tmp_marker, ".tmp-%ld-", (long)getpid());
    snprintf(partial_marker, sizeof partial_marker, ".partial-%ld-", (long)getpid());
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++) sigaddset(&action.sa_mask, guarded[i]);
    for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++) {
        struct sigaction old;
        /* A signal the parent ignores (nohup, a background job's SIGINT) stays ignored. */
        if (sigaction(guarded[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(guarded[i], &action, NULL);
    }
}

int32_t cwg_watch_folder(const char *folder) {
    size_t n = length(folder);
    if (n == 0 || n >= PATH_BYTES) return -1;
    for (int i = 0; i < folder_count; i++) {
        if (strcmp(folders[i], folder) == 0) return 0;
    }
    if (folder_count >= MAX_FOLDERS) return -1;
    memcpy(folders[folder_count], folder, n + 1);
    /* Counted only once complete, so the handler never reads a half-copied path. */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    folder_count = folder_count + 1;
    return 0;
}

static void set_subject(const char *subject) {
    int next = 1 - subject_index;
    size_t n = length(subject);
    if (n >= SUBJECT_BYTES) n = SUBJECT_BYTES - 1;
    memcpy(subjects[next], subject, n);
    subjects[next][n] = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    subject_index = next;
}

void cwg_write_begin(const char *subject) {
    set_subject(subject);
    writes = writes + 1;
}

void cwg_write_end(const char *outer_subject) {
    if (writes > 0) writes = writes - 1;
    if (outer_subject) set_subject(outer_subject);
}

void cwg_commit_begin(void) {
    committing = 1;
}

void cwg_commit_end(int32_t succeeded) {
    committing = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    int number = held_signal;
    held_signal = 0;
    /* After a failed commit the caller reports the failure and exits 3 anyway. */
    if (number != 0 && succeeded) {
        signal(number, SIG_DFL);
        raise(number);
    }
}
