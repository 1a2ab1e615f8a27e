#include <pthread.h>
#include "expat_library.h"

CIC_DEFINE_LOADER(expat, CIC_EXPAT_FUNCTIONS, "libexpat.so.1", "libexpat1")
