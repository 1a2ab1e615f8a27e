// Shared by the shim's translation units: status reporting and the exception firewall.
#pragma once

#include "cloudgen_shim.h"

#include <new>
#include <stdexcept>
#include <string>

namespace pcl {
class PCLException;
}

namespace cloudgen {

// Thrown inside the shim to fail an entry point with a specific code.
struct ShimError : std::runtime_error {
    int32_t code;
    ShimError(int32_t code, const std::string &message) : std::runtime_error(message), code(code) {}
};

void setStatus(cg_status *status, int32_t code, const char *message);

// A PCL exception's own description, without the "function in file @ line : " prefix of what().
std::string describe(const pcl::PCLException &error);

// Silences PCL's console once per process: PCL logs parse errors to stderr, and our CLI's stderr
// must carry only our own one-line messages.
void silencePCL();

// Runs `body` with every C++ exception turned into a status code, so none unwinds into Swift.
template <typename Body>
int32_t guarded(cg_status *status, Body &&body) {
    try {
        silencePCL();
        body();
        setStatus(status, CG_OK, "");
        return CG_OK;
    } catch (const ShimError &error) {
        setStatus(status, error.code, error.what());
        return error.code;
    } catch (const std::bad_alloc &) {
        setStatus(status, CG_INTERNAL, "out of memory");
        return CG_INTERNAL;
    } catch (const std::exception &error) {
        setStatus(status, CG_INTERNAL, error.what());
        return CG_INTERNAL;
    } catch (...) {
        setStatus(status, CG_INTERNAL, "unexpected C++ exception in PCL");
        return CG_INTERNAL;
    }
}

}  // namespace cloudgen
