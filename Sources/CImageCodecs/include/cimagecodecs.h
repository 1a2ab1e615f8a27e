/* C wrappers over libpng, libjpeg-turbo and libtiff (filled in by the image-codecs work). */
#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H
#include <stddef.h>
#include <stdint.h>
#endif
