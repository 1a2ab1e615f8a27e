#include <signal.h>
#include <string.h>
#include "cdevices.h"

static volatile sig_atomic_t requested = 0;
/* The handler before ours (cloudgen's, which removes half-written outputs): a second Ctrl-C goes to it. */
static struct sigaction previous;

static void on_interrupt(int signal_number) {
    (void)signal_number;
    requested = 1;
    sigaction(SIGINT, &previous, NULL);
}

void cdv_interrupt_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    /* The handler runs once, then hands SIGINT back: a second Ctrl-C ends a capture that does not stop. */
    sigaction(SIGINT, &action, &previous);
}

int32_t cdv_interrupt_requested(void) {
    return requested;
}
