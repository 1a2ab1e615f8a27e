#include "shim_internal.hpp"

#include <pcl/console/print.h>

#include <cstring>
#include <mutex>

namespace cloudgen {

void setStatus(cg_status *status, int32_t code, const char *message) {
    if (status == nullptr) return;
    status->code = code;
    std::strncpy(status->message, message, CG_MESSAGE_CAPACITY - 1);
    status->message[CG_MESSAGE_CAPACITY - 1] = '\0';
}

void silencePCL() {
    static std::once_flag once;
    std::call_once(once, [] { pcl::console::setVerbosityLevel(pcl::console::L_ALWAYS); });
}

}  // namespace cloudgen
