#include <stdlib.h>
#include <string.h>
#include "expat_library.h"

#define RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
/* Expat joins a namespace URI and a local name with this; no URI holds a space. */
#define SEPARATOR ' '
#define MAX_VALUE (64u * 1024u)
#define MAX_VALUES 100000
#define MAX_NAME 1024

typedef struct xmp_walk {
    XML_Parser parser;
    cic_xmp_property property;
    void *context;
    cic_status *status;
    int32_t failed;
    long depth;
    long description_depth; /* of the open rdf:Description, 0 outside one */
    long property_depth;    /* of the open top-level property, 0 outside one */
    int structured;         /* the open property holds a resource, not values */
    int in_item;            /* inside an rdf:li of the open property */
    int32_t index;          /* of the next rdf:li */
    int had_items;
    long values;
    char property_name[MAX_NAME];
    size_t text_length;
    char text[MAX_VALUE + 1];
} xmp_walk;

static void stop(xmp_walk *walk, int32_t code, const char *message) {
    if (!walk->failed) {
        walk->failed = code;
        cic_fail(walk->status, code, "%s (line %lu)", message, (unsigned long)XML_GetCurrentLineNumber(walk->parser));
    }
    XML_StopParser(walk->parser, XML_FALSE);
}

static int is_rdf(const char *name, const char *local) {
    return strncmp(name, RDF, sizeof RDF - 1) == 0 && name[sizeof RDF - 1] == SEPARATOR && strcmp(name + sizeof RDF, local) == 0;
}

/* Calls back with `name` ("URI local") split, and `value` with surrounding white space removed. */
static void emit(xmp_walk *walk, const char *name, char *value, int32_t index) {
    if (walk->failed) return;
    if (++walk->values > MAX_VALUES) return stop(walk, CIC_BAD_INPUT, "more than 100000 XMP values");
    char uri[MAX_NAME];
    const char *split = strchr(name, SEPARATOR);
    const char *local = split ? split + 1 : name;
    size_t uri_length = split ? (size_t)(split - name) : 0;
    memcpy(uri, name, uri_length);
    uri[uri_length] = 0;
    while (*value == ' ' || *value == '\n' || *value == '\r' || *value == '\t') value++;
    size_t n = strlen(value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\n' || value[n - 1] == '\r' || value[n - 1] == '\t')) value[--n] = 0;
    int32_t code = walk->property(walk->context, uri, local, value, index);
    if (code != CIC_OK) {
        walk->failed = code;
        XML_StopParser(walk->parser, XML_FALSE);
    }
}

static void XMLCALL start(void *data, const XML_Char *name, const XML_Char **attributes) {
    xmp_walk *walk = data;
    walk->depth++;
    if (walk->property_depth == 0 && is_rdf(name, "Description")) {
        walk->description_depth = walk->depth;
        for (const XML_Char **a = attributes; *a; a += 2) {
            if (strncmp(a[0], RDF, sizeof RDF - 1) == 0 || !strchr(a[0], SEPARATOR)) continue;
            char value[MAX_VALUE + 1];
            size_t n = strlen(a[1]);
            if (n > MAX_VALUE) return stop(walk, CIC_BAD_INPUT, "an XMP value over 64 KiB");
            memcpy(value, a[1], n + 1);
            emit(walk, a[0], value, 0);
        }
    } else if (walk->property_depth == 0 && walk->description_depth > 0 && walk->description_depth == walk->depth - 1) {
        if (strlen(name) >= MAX_NAME) return stop(walk, CIC_BAD_INPUT, "an XMP property name over 1 KiB");
        strcpy(walk->property_name, name);
        walk->property_depth = walk->depth;
        walk->structured = walk->in_item = walk->had_items = 0;
        walk->index = 0;
        walk->text_length = 0;
        for (const XML_Char **a = attributes; *a; a += 2) {
            if (is_rdf(a[0], "parseType")) walk->structured = 1;
        }
    } else if (walk->property_depth > 0 && !walk->structured) {
        long below = walk->depth - walk->property_depth;
        if (below == 1 && (is_rdf(name, "Seq") || is_rdf(name, "Bag") || is_rdf(name, "Alt"))) return;
        if (below == 2 && is_rdf(name, "li")) {
            walk->in_item = 1;
            walk->text_length = 0;
            return;
        }
        walk->structured = 1;
    }
}

static void XMLCALL end(void *data, const XML_Char *name) {
    xmp_walk *walk = data;
    (void)name;
    if (walk->property_depth > 0 && !walk->structured) {
        if (walk->in_item && walk->depth == walk->property_depth + 2) {
            walk->text[walk->text_length] = 0;
            emit(walk, walk->property_name, walk->text, walk->index++);
            walk->in_item = 0;
            walk->had_items = 1;
            walk->text_length = 0;
        } else if (walk->depth == walk->property_depth && !walk->had_items) {
            walk->text[walk->text_length] = 0;
            emit(walk, walk->property_name, walk->text, 0);
        }
    }
    if (walk->depth == walk->property_depth) walk->property_depth = 0;
    if (walk->depth == walk->description_depth) walk->description_depth = 0;
    walk->depth--;
}

static void XMLCALL characters(void *data, const XML_Char *text, int length) {
    xmp_walk *walk = data;
    int collecting = walk->property_depth > 0 && !walk->structured &&
                     (walk->in_item || walk->depth == walk->property_depth);
    if (!collecting || length <= 0) return;
    if (walk->text_length + (size_t)length > MAX_VALUE) return stop(walk, CIC_BAD_INPUT, "an XMP value over 64 KiB");
    memcpy(walk->text + walk->text_length, text, (size_t)length);
    walk->text_length += (size_t)length;
}

static void XMLCALL doctype(void *data, const XML_Char *name, const XML_Char *system_id, const XML_Char *public_id,
                            int has_internal_subset) {
    (void)name, (void)system_id, (void)public_id, (void)has_internal_subset;
    stop(data, CIC_BAD_INPUT, "a document type declaration, which XMP never has");
}

int32_t cic_xmp_parse(const uint8_t *bytes, size_t size, cic_xmp_property property, void *context, cic_status *status) {
    if (cic_expat_load(status) != CIC_OK) return status->code;
    if (size > (size_t)INT32_MAX) return cic_fail(status, CIC_BAD_INPUT, "an XMP packet of %zu bytes", size);
    xmp_walk *walk = calloc(1, sizeof *walk);
    if (!walk) return cic_fail(status, CIC_IO_ERROR, "out of memory");
    walk->parser = XML_ParserCreateNS(NULL, SEPARATOR);
    if (!walk->parser) {
        free(walk);
        return cic_fail(status, CIC_IO_ERROR, "out of memory");
    }
    walk->property = property;
    walk->context = context;
    walk->status = status;
    XML_SetUserData(walk->parser, walk);
    XML_SetElementHandler(walk->parser, start, end);
    XML_SetCharacterDataHandler(walk->parser, characters);
    XML_SetStartDoctypeDeclHandler(walk->parser, doctype);
    cic_succeed(status);
    if (XML_Parse(walk->parser, (const char *)bytes, (int)size, XML_TRUE) == XML_STATUS_ERROR && !walk->failed) {
        cic_fail(status, CIC_BAD_INPUT, "malformed XMP: %s (line %lu)", XML_ErrorString(XML_GetErrorCode(walk->parser)),
                 (unsigned long)XML_GetCurrentLineNumber(walk->parser));
    } else if (walk->failed && status->code == CIC_OK) {
        cic_fail(status, walk->failed, "stopped by the caller");
    }
    XML_ParserFree(walk->parser);
    free(walk);
    return status->code;
}
