#include <dlfcn.h>
#include <pthread.h>
#include "tiff_library.h"

cic_tiff_functions cic_tiff;

static cic_status load_status;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* The names as strings, before the macros of tiff_library.h replace them: #name of a macro
   argument is not expanded. */
#define CIC_TIFF_NAME(name) #name,
static const char *const names[] = {CIC_TIFF_FUNCTIONS(CIC_TIFF_NAME)};
#undef CIC_TIFF_NAME

static void load(void) {
    static const char soname[] = "libtiff.so.6";
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        cic_fail(&load_status, CIC_IO_ERROR, "%s cannot be loaded (Debian package libtiff6): %s", soname, dlerror());
        return;
    }
    void **functions = (void **)&cic_tiff;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        functions[i] = dlsym(library, names[i]);
        if (!functions[i]) {
            cic_fail(&load_status, CIC_IO_ERROR, "%s has no %s (an incompatible version?)", soname, names[i]);
            dlclose(library);
            return;
        }
    }
    cic_succeed(&load_status);
}

/* The loop above fills the struct as an array of pointers, one per name. */
_Static_assert(sizeof(cic_tiff_functions) == sizeof names / sizeof names[0] * sizeof(void *),
               "cic_tiff_functions must hold one pointer per name");

int32_t cic_tiff_load(cic_status *status) {
    pthread_once(&load_once, load);
    *status = load_status;
    return load_status.code;
}
