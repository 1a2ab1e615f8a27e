#include <dlfcn.h>
#include "library_loader.h"

int32_t cic_load_functions(const char *soname, const char *package, const char *const *names, size_t count,
                           void **functions, cic_status *status) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        return cic_fail(status, CIC_IO_ERROR, "%s cannot be loaded (Debian package %s): %s", soname, package, dlerror());
    }
    for (size_t i = 0; i < count; i++) {
        functions[i] = dlsym(library, names[i]);
        if (!functions[i]) {
            cic_fail(status, CIC_IO_ERROR, "%s has no %s (an incompatible version?)", soname, names[i]);
            dlclose(library);
            return status->code;
        }
    }
    cic_succeed(status);
    return CIC_OK;
}
