#include "cimagecodecs.h"
