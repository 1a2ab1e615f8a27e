#include <pthread.h>
#include "heif_library.h"

CIC_DEFINE_LOADER(heif, CIC_HEIF_FUNCTIONS, "libheif.so.1", "libheif1")
