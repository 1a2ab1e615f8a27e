#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "exr_library.h"

cic_exr_functions cic_exr;

static cic_status load_status;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* The names as strings, before the macros of exr_library.h replace them: #name of a macro
   argument is not expanded. */
#define CIC_EXR_NAME(name) #name,
static const char *const names[] = {CIC_EXR_FUNCTIONS(CIC_EXR_NAME)};
#undef CIC_EXR_NAME

static void load(void) {
    static const char soname[] = "libOpenEXRCore-3_1.so.30";
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        cic_fail(&load_status, CIC_IO_ERROR, "%s cannot be loaded (Debian package libopenexr-3-1-30): %s", soname, dlerror());
        return;
    }
    void **functions = (void **)&cic_exr;
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
_Static_assert(sizeof(cic_exr_functions) == sizeof names / sizeof names[0] * sizeof(void *),
               "cic_exr_functions must hold one pointer per name");

int32_t cic_exr_load(cic_status *status) {
    pthread_once(&load_once, load);
    *status = load_status;
    return load_status.code;
}

static _Thread_local char last_message[CIC_MESSAGE_CAPACITY];

void cic_exr_keep_message(exr_const_context_t context, exr_result_t code, const char *message) {
    (void)context;
    (void)code;
    snprintf(last_message, sizeof last_message, "%s", message ? message : "");
}

void cic_exr_forget_message(void) {
    last_message[0] = 0;
}

int32_t cic_exr_fail(cic_status *status, exr_result_t code, const char *doing) {
    const char *detail = last_message[0] ? last_message : exr_get_default_error_message(code);
    /* Bad input whatever the code: the library answers some corrupt compressed chunks with its
       out-of-memory code too, and the sizes it allocates for were bounded before it was called. */
    int32_t result = cic_fail(status, CIC_BAD_INPUT, "%s: %s", doing, detail);
    last_message[0] = 0;
    return result;
}
