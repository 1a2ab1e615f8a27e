#include "shim_internal.hpp"

#include <pcl/console/print.h>
#include <pcl/exceptions.h>

#include <cstring>
#include <mutex>

namespace cloudgen {

void setStatus(cg_status *status, int32_t code, const char *message) {
    if (status == nullptr) return;
    status->code = code;
    std::strncpy(status->message, message, CG_MESSAGE_CAPACITY - 1);
    status->message[CG_MESSAGE_CAPACITY - 1] = '\0';
}

std::string describe(const pcl::PCLException &error) {
    const std::string detailed = error.what();
    const size_t separator = detailed.find(": ");
    return separator == std::string::npos ? detailed : detailed.substr(separator + 2);
}

void silencePCL() {
    static std::once_flag once;
    std::call_once(once, [] { pcl::console::setVerbosityLevel(pcl::console::L_ALWAYS); });
}

}  // namespace cloudgen
