#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "cstatus.h"

void cs_succeed(cs_status *status) {
    status->code = CS_OK;
    status->message[0] = 0;
}

int32_t cs_vfail(cs_status *status, int32_t code, const char *format, va_list arguments) {
    status->code = code;
    vsnprintf(status->message, sizeof status->message, format, arguments);
    /* Library messages sometimes end in a newline or span lines; the caller's error is one line. */
    for (char *c = status->message; *c; c++) {
        if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    }
    size_t length = strlen(status->message);
    while (length > 0 && (status->message[length - 1] == ' ' || status->message[length - 1] == '.')) {
        status->message[--length] = 0;
    }
    return code;
}

int32_t cs_fail(cs_status *status, int32_t code, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    cs_vfail(status, code, format, arguments);
    va_end(arguments);
    return code;
}

int32_t cs_load_library(const char *const *sonames, const char *package, const char *const *names, size_t count,
                        void **functions, void **library, cs_status *status) {
    void *handle = NULL;
    /* Why the first name failed (missing, or built for another architecture): dlerror's text is
       overwritten by the next call, so it is kept here. */
    char why[256] = "";
    for (const char *const *name = sonames; *name && !handle; name++) {
        handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        const char *error = handle ? NULL : dlerror();
        if (name == sonames && error) snprintf(why, sizeof why, "%s", error);
    }
    if (!handle) return cs_fail(status, CS_IO_ERROR, "%s cannot be loaded (Debian package %s): %s", sonames[0], package, why);
    for (size_t i = 0; i < count; i++) {
        functions[i] = dlsym(handle, names[i]);
        if (!functions[i]) {
            cs_fail(status, CS_IO_ERROR, "%s has no %s (an incompatible version?)", sonames[0], names[i]);
            dlclose(handle);
            return status->code;
        }
    }
    if (library) *library = handle;
    cs_succeed(status);
    return CS_OK;
}
