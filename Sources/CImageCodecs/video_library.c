#include <dlfcn.h>
#include <pthread.h>
#include "video_library.h"

cic_av_functions cic_av;

static cic_status load_status;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* The names as strings and their libraries, before the macros of video_library.h replace the
   names: #name of a macro argument is not expanded. */
#define CIC_AV_NAME(library, name) #name,
static const char *const names[] = {CIC_AV_FUNCTIONS(CIC_AV_NAME)};
#undef CIC_AV_NAME
#define CIC_AV_LIBRARY(library, name) library,
static const int libraries[] = {CIC_AV_FUNCTIONS(CIC_AV_LIBRARY)};
#undef CIC_AV_LIBRARY

static const char *const sonames[] = {"libavutil.so.57", "libavcodec.so.59", "libavformat.so.59"};
static const char *const packages[] = {"libavutil57", "libavcodec59", "libavformat59"};

static void load(void) {
    void *handles[3] = {0};
    /* In dependency order: libavcodec needs libavutil, libavformat both. */
    for (int i = 0; i < 3; i++) {
        handles[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            cic_fail(&load_status, CIC_IO_ERROR, "%s cannot be loaded (Debian package %s): %s", sonames[i], packages[i], dlerror());
            goto fail;
        }
    }
    void **functions = (void **)&cic_av;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        functions[i] = dlsym(handles[libraries[i]], names[i]);
        if (!functions[i]) {
            cic_fail(&load_status, CIC_IO_ERROR, "%s has no %s (an incompatible version?)", sonames[libraries[i]], names[i]);
            goto fail;
        }
    }
    /* FFmpeg prints its complaints to stderr; the decoder reports each failure in its status instead. */
    av_log_set_level(AV_LOG_QUIET);
    cic_succeed(&load_status);
    return;
fail:
    for (int i = 2; i >= 0; i--) {
        if (handles[i]) dlclose(handles[i]);
    }
}

/* The loop above fills the struct as an array of pointers, one per name. */
_Static_assert(sizeof(cic_av_functions) == sizeof names / sizeof names[0] * sizeof(void *),
               "cic_av_functions must hold one pointer per name");

int32_t cic_av_load(cic_status *status) {
    pthread_once(&load_once, load);
    *status = load_status;
    return load_status.code;
}
