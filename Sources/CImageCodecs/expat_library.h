/*
 * expat, opened with dlopen on the first XMP packet (library_loader.h says why). xmp_parser.c
 * includes this header instead of <expat.h> alone and calls expat as usual.
 */
#ifndef CIC_EXPAT_LIBRARY_H
#define CIC_EXPAT_LIBRARY_H

#include <expat.h>
#include "library_loader.h"

#define CIC_EXPAT_FUNCTIONS(X) \
    X(XML_ParserCreateNS) X(XML_ParserFree) X(XML_SetUserData) X(XML_SetElementHandler) \
    X(XML_SetCharacterDataHandler) X(XML_SetStartDoctypeDeclHandler) X(XML_Parse) X(XML_StopParser) \
    X(XML_GetErrorCode) X(XML_ErrorString) X(XML_GetCurrentLineNumber)

typedef struct cic_expat_functions {
    CIC_EXPAT_FUNCTIONS(CIC_FUNCTION_FIELD)
} cic_expat_functions;

extern cic_expat_functions cic_expat;

/* Loads expat once per process and fills cic_expat (as cic_tiff_load does for libtiff). */
int32_t cic_expat_load(cic_status *status);

#define XML_ParserCreateNS cic_expat.XML_ParserCreateNS
#define XML_ParserFree cic_expat.XML_ParserFree
#define XML_SetUserData cic_expat.XML_SetUserData
#define XML_SetElementHandler cic_expat.XML_SetElementHandler
#define XML_SetCharacterDataHandler cic_expat.XML_SetCharacterDataHandler
#define XML_SetStartDoctypeDeclHandler cic_expat.XML_SetStartDoctypeDeclHandler
#define XML_Parse cic_expat.XML_Parse
#define XML_StopParser cic_expat.XML_StopParser
#define XML_GetErrorCode cic_expat.XML_GetErrorCode
#define XML_ErrorString cic_expat.XML_ErrorString
#define XML_GetCurrentLineNumber cic_expat.XML_GetCurrentLineNumber

#endif
