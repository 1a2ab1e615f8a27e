#include <pthread.h>
#include "tiff_library.h"

CIC_DEFINE_LOADER(tiff, CIC_TIFF_FUNCTIONS, "libtiff.so.6", "libtiff6")
