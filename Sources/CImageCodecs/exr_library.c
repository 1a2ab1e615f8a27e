#include <pthread.h>
#include <stdio.h>
#include "exr_library.h"

CIC_DEFINE_LOADER(exr, CIC_EXR_FUNCTIONS, "libOpenEXRCore-3_1.so.30", "libopenexr-3-1-30")

static _Thread_local char last_message[CS_MESSAGE_CAPACITY];

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
