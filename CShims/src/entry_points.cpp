// The library's one exported symbol: a pointer to every entry point, which cloudgen looks up with
// dlsym after loading the library on first use (CG_SHIM_ENTRY_POINTS lists them).
#include "cloudgen_shim_entry_points.h"

#define CG_SHIM_ENTRY_VALUE(name) cg_##name,

extern "C" __attribute__((visibility("default"))) const cg_shim_entry_points cg_shim_entry_points_table = {
    CG_SHIM_ENTRY_POINTS(CG_SHIM_ENTRY_VALUE)
};
