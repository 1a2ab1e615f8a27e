#include <stdio.h>
#include <string.h>
#include "codecs_internal.h"

void cic_succeed(cic_status *status) {
    status->code = CIC_OK;
    status->message[0] = 0;
}

int32_t cic_vfail(cic_status *status, int32_t code, const char *format, va_list arguments) {
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

int32_t cic_fail(cic_status *status, int32_t code, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    cic_vfail(status, code, format, arguments);
    va_end(arguments);
    return code;
}
