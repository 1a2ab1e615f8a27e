#include <signal.h>
#include <string.h>
#include "cdevices.h"

static volatile sig_atomic_t requested = 0;

static void on_interrupt(int signal_number) {
    (void)signal_number;
    requested = 1;
}

void cdv_interrupt_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    /* SA_RESETHAND: the handler runs once, so a second Ctrl-C ends a capture that does not stop. */
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, NULL);
}

int32_t cdv_interrupt_requested(void) {
    return requested;
}
