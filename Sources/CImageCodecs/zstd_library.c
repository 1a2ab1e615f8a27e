#include <pthread.h>
#include "zstd_library.h"

CIC_DEFINE_LOADER(zstd, CIC_ZSTD_FUNCTIONS, "libzstd.so.1", "libzstd1")
