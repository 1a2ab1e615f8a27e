// C++ only because OpenNI2's C header (OniCTypes.h) declares its handles in C++ syntax; the code is
// C and the API it offers is the extern "C" one in cdevices.h.
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openni2/OniCAPI.h>
#include "devices_internal.h"

namespace {

// The OpenNI2 functions used, resolved by name from libOpenNI2.
struct OpenNI2API {
    OniStatus (*initialize)(int);
    void (*shutdown)();
    const char *(*extended_error)();
    OniStatus (*device_open)(const char *, OniDeviceHandle *);
    OniStatus (*device_close)(OniDeviceHandle);
    OniStatus (*device_get_info)(OniDeviceHandle, OniDeviceInfo *);
    const OniSensorInfo *(*device_sensor_info)(OniDeviceHandle, OniSensorType);
    OniStatus (*device_create_stream)(OniDeviceHandle, OniSensorType, OniStreamHandle *);
    OniStatus (*device_set_property)(OniDeviceHandle, int, const void *, int);
    OniStatus (*device_get_property)(OniDeviceHandle, int, void *, int *);
    OniBool (*device_property_supported)(OniDeviceHandle, int);
    OniBool (*device_registration_supported)(OniDeviceHandle, OniImageRegistrationMode);
    OniStatus (*device_enable_sync)(OniDeviceHandle);
    OniStatus (*wait_for_any_stream)(OniStreamHandle *, int, int *, int);
    OniStatus (*stream_start)(OniStreamHandle);
    void (*stream_stop)(OniStreamHandle);
    void (*stream_destroy)(OniStreamHandle);
    OniStatus (*stream_read_frame)(OniStreamHandle, OniFrame **);
    OniStatus (*stream_get_property)(OniStreamHandle, int, void *, int *);
    OniStatus (*stream_set_property)(OniStreamHandle, int, const void *, int);
    void (*frame_release)(OniFrame *);
};

const char *const api_names[] = {
    "oniInitialize", "oniShutdown", "oniGetExtendedError", "oniDeviceOpen", "oniDeviceClose", "oniDeviceGetInfo",
    "oniDeviceGetSensorInfo", "oniDeviceCreateStream", "oniDeviceSetProperty", "oniDeviceGetProperty",
    "oniDeviceIsPropertySupported", "oniDeviceIsImageRegistrationModeSupported", "oniDeviceEnableDepthColorSync",
    "oniWaitForAnyStream", "oniStreamStart", "oniStreamStop", "oniStreamDestroy", "oniStreamReadFrame",
    "oniStreamGetProperty", "oniStreamSetProperty", "oniFrameRelease",
};
// cdv_library_load fills the struct as an array of pointers, one per name.
static_assert(sizeof(OpenNI2API) == sizeof api_names / sizeof api_names[0] * sizeof(void *),
              "OpenNI2API and api_names must list the same functions");

}  // namespace

struct cdv_openni2 {
    void *library;
    OpenNI2API api;
    int initialized;
    OniDeviceHandle device;
    // [CDV_DEPTH], [CDV_COLOR]; a missing color stream stays NULL.
    OniStreamHandle streams[2];
    cdv_slot slots[2];
    int is_file;
};

// OpenNI2's last error, without the spaces and newlines it pads its messages with.
static const char *why(cdv_openni2 *device) {
    static char trimmed[200];
    const char *text = device->api.extended_error ? device->api.extended_error() : NULL;
    while (text && isspace((unsigned char)*text)) text++;
    snprintf(trimmed, sizeof trimmed, "%s", text && *text ? text : "no reason given");
    size_t length = strlen(trimmed);
    while (length > 0 && isspace((unsigned char)trimmed[length - 1])) trimmed[--length] = 0;
    return trimmed;
}

static void release(cdv_openni2 *device) {
    for (int i = 0; i < 2; i++) {
        if (device->streams[i]) {
            device->api.stream_stop(device->streams[i]);
            device->api.stream_destroy(device->streams[i]);
        }
        cdv_slot_free(&device->slots[i]);
    }
    if (device->device) device->api.device_close(device->device);
    if (device->initialized) device->api.shutdown();
    if (device->library) dlclose(device->library);
    free(device);
}

// Picks the stream's mode: the current one when its pixel format is usable, else the supported mode
// of a usable format nearest 640x480 at 30 fps. Recordings keep what they hold.
static int32_t choose_mode(cdv_openni2 *device, OniSensorType sensor, OniStreamHandle stream,
                           const OniPixelFormat *formats, int format_count, cdv_status *status) {
    OniVideoMode mode;
    int size = sizeof mode;
    if (device->api.stream_get_property(stream, ONI_STREAM_PROPERTY_VIDEO_MODE, &mode, &size) != ONI_STATUS_OK) {
        return cdv_fail(status, CDV_FAILED, "OpenNI2 does not tell the stream's video mode: %s", why(device));
    }
    for (int i = 0; i < format_count; i++) {
        if (mode.pixelFormat == formats[i]) return CDV_OK;
    }
    const OniSensorInfo *info = device->is_file ? NULL : device->api.device_sensor_info(device->device, sensor);
    const OniVideoMode *best = NULL;
    long best_cost = 0;
    for (int m = 0; info && m < info->numSupportedVideoModes; m++) {
        const OniVideoMode *candidate = &info->pSupportedVideoModes[m];
        for (int i = 0; i < format_count; i++) {
            if (candidate->pixelFormat != formats[i]) continue;
            long cost = labs(candidate->resolutionX - 640L) + labs(candidate->resolutionY - 480L) + labs(candidate->fps - 30L) * 10;
            if (!best || cost < best_cost) best = candidate, best_cost = cost;
        }
    }
    if (!best || device->api.stream_set_property(stream, ONI_STREAM_PROPERTY_VIDEO_MODE, best, sizeof *best) != ONI_STATUS_OK) {
        return cdv_fail(status, device->is_file ? CDV_BAD_INPUT : CDV_FAILED,
                        "the %s stream is in pixel format %d, which cloudgen cannot read (%s)",
                        sensor == ONI_SENSOR_DEPTH ? "depth" : "color", (int)mode.pixelFormat,
                        sensor == ONI_SENSOR_DEPTH ? "depth in 1 mm or 100 um units" : "RGB888");
    }
    return CDV_OK;
}

static int32_t open_stream(cdv_openni2 *device, OniSensorType sensor, int32_t slot, cdv_status *status) {
    static const OniPixelFormat depth_formats[] = {ONI_PIXEL_FORMAT_DEPTH_1_MM, ONI_PIXEL_FORMAT_DEPTH_100_UM};
    static const OniPixelFormat color_formats[] = {ONI_PIXEL_FORMAT_RGB888};
    if (device->api.device_create_stream(device->device, sensor, &device->streams[slot]) != ONI_STATUS_OK) {
        device->streams[slot] = NULL;
        if (sensor == ONI_SENSOR_COLOR) return CDV_OK;  // depth-only devices and recordings exist
        return cdv_fail(status, device->is_file ? CDV_BAD_INPUT : CDV_FAILED, "no depth stream: %s", why(device));
    }
    int32_t result = sensor == ONI_SENSOR_DEPTH ? choose_mode(device, sensor, device->streams[slot], depth_formats, 2, status)
                                                : choose_mode(device, sensor, device->streams[slot], color_formats, 1, status);
    if (result != CDV_OK) return result;
    if (device->api.stream_start(device->streams[slot]) != ONI_STATUS_OK) {
        return cdv_fail(status, CDV_FAILED, "the %s stream does not start: %s", sensor == ONI_SENSOR_DEPTH ? "depth" : "color", why(device));
    }
    return CDV_OK;
}

static void describe(cdv_openni2 *device, cdv_openni2_info *info) {
    OniStreamHandle optics = device->streams[CDV_COLOR] && info->registered ? device->streams[CDV_COLOR] : device->streams[CDV_DEPTH];
    int size = sizeof(float);
    device->api.stream_get_property(optics, ONI_STREAM_PROPERTY_HORIZONTAL_FOV, &info->horizontal_fov, &size);
    size = sizeof(float);
    device->api.stream_get_property(optics, ONI_STREAM_PROPERTY_VERTICAL_FOV, &info->vertical_fov, &size);
    OniVideoMode mode = {};
    size = sizeof mode;
    // Millimetres unless the stream says otherwise; a failed query leaves the common unit.
    bool tenths_of_mm = device->api.stream_get_property(device->streams[CDV_DEPTH], ONI_STREAM_PROPERTY_VIDEO_MODE, &mode, &size) == ONI_STATUS_OK &&
                  mode.pixelFormat == ONI_PIXEL_FORMAT_DEPTH_100_UM;
    info->depth_units_per_metre = tenths_of_mm ? 10000 : 1000;
    info->has_color = device->streams[CDV_COLOR] != NULL;
    info->is_file = device->is_file;
    OniDeviceInfo about;
    if (device->api.device_get_info(device->device, &about) == ONI_STATUS_OK) {
        strncpy(info->uri, about.uri, sizeof info->uri - 1);
        strncpy(info->name, about.name, sizeof info->name - 1);
    }
}

static const char *const sonames[] = {"libOpenNI2.so.0", "libOpenNI2.so", NULL};

extern "C" int32_t cdv_openni2_installed(void) {
    cdv_status status;
    void *library = cdv_library_load(sonames, "libopenni2-0", NULL, 0, NULL, &status);
    if (library) dlclose(library);
    return library != NULL;
}

extern "C" cdv_openni2 *cdv_openni2_open(const char *uri, cdv_openni2_info *info, cdv_status *status) {
    memset(info, 0, sizeof *info);
    cdv_openni2 *device = (cdv_openni2 *)calloc(1, sizeof *device);
    if (!device) return cdv_fail(status, CDV_FAILED, "out of memory"), (cdv_openni2 *)NULL;
    device->library = cdv_library_load(sonames, "libopenni2-0", api_names, sizeof api_names / sizeof api_names[0],
                                       (void **)&device->api, status);
    if (!device->library) {
        release(device);
        return NULL;
    }
    if (device->api.initialize(ONI_API_VERSION) != ONI_STATUS_OK) {
        cdv_fail(status, CDV_FAILED, "OpenNI2 does not initialize: %s", why(device));
        release(device);
        return NULL;
    }
    device->initialized = 1;
    // A NULL URI is OpenNI's "any device".
    if (device->api.device_open(uri, &device->device) != ONI_STATUS_OK) {
        device->device = NULL;
        if (!uri) cdv_fail(status, CDV_NO_DEVICE, "no OpenNI2 device is attached (%s)", why(device));
        else cdv_fail(status, CDV_NO_DEVICE, "OpenNI2 cannot open %s: %s", uri, why(device));
        release(device);
        return NULL;
    }
    device->is_file = device->api.device_property_supported(device->device, ONI_DEVICE_PROPERTY_PLAYBACK_SPEED);
    if (device->is_file) {
        // Play once: capture asks for N frames, and a repeating recording would never end.
        OniBool repeat = 0;
        device->api.device_set_property(device->device, ONI_DEVICE_PROPERTY_PLAYBACK_REPEAT_ENABLED, &repeat, sizeof repeat);
    }
    if (open_stream(device, ONI_SENSOR_DEPTH, CDV_DEPTH, status) != CDV_OK ||
        open_stream(device, ONI_SENSOR_COLOR, CDV_COLOR, status) != CDV_OK) {
        release(device);
        return NULL;
    }
    if (device->streams[CDV_COLOR]) {
        OniImageRegistrationMode mode = ONI_IMAGE_REGISTRATION_DEPTH_TO_COLOR;
        if (device->api.device_registration_supported(device->device, mode)) {
            device->api.device_set_property(device->device, ONI_DEVICE_PROPERTY_IMAGE_REGISTRATION, &mode, sizeof mode);
        }
        // What is in effect, whether set now or recorded in the .oni.
        int size = sizeof mode;
        info->registered = device->api.device_get_property(device->device, ONI_DEVICE_PROPERTY_IMAGE_REGISTRATION, &mode, &size) == ONI_STATUS_OK
                           && mode == ONI_IMAGE_REGISTRATION_DEPTH_TO_COLOR;
        device->api.device_enable_sync(device->device);
    }
    describe(device, info);
    cdv_succeed(status);
    return device;
}

extern "C" int32_t cdv_openni2_poll(cdv_openni2 *device, int32_t timeout_ms, cdv_status *status) {
    OniStreamHandle streams[2];
    int32_t slots[2];
    int count = 0;
    for (int32_t i = 0; i < 2; i++) {
        if (device->streams[i]) streams[count] = device->streams[i], slots[count++] = i;
    }
    int ready = -1;
    OniStatus waited = device->api.wait_for_any_stream(streams, count, &ready, timeout_ms);
    if (waited == ONI_STATUS_TIME_OUT) {
        cdv_succeed(status);
        return 0;
    }
    if (waited != ONI_STATUS_OK || ready < 0 || ready >= count) {
        cdv_fail(status, CDV_FAILED, "OpenNI2 stopped streaming (unplugged?): %s", why(device));
        return -1;
    }
    OniFrame *frame = NULL;
    if (device->api.stream_read_frame(streams[ready], &frame) != ONI_STATUS_OK || !frame) {
        cdv_fail(status, CDV_FAILED, "OpenNI2 cannot read a frame: %s", why(device));
        return -1;
    }
    int32_t slot = slots[ready];
    int32_t bytes_per_pixel = slot == CDV_DEPTH ? 2 : 3;
    int32_t result = 1;
    size_t row = (size_t)frame->width * bytes_per_pixel;
    if (frame->width <= 0 || frame->height <= 0 || frame->stride < (int)row ||
        (size_t)frame->dataSize < (size_t)frame->stride * (frame->height - 1) + row) {
        cdv_fail(status, device->is_file ? CDV_BAD_INPUT : CDV_FAILED, "OpenNI2 delivered a %dx%d frame of %d bytes (stride %d)",
                 frame->width, frame->height, frame->dataSize, frame->stride);
        result = -1;
    } else if (cdv_slot_store(&device->slots[slot], frame->data, (size_t)frame->stride, frame->width, frame->height,
                              bytes_per_pixel, frame->timestamp) != 0) {
        cdv_fail(status, CDV_FAILED, "out of memory copying a frame");
        result = -1;
    }
    device->api.frame_release(frame);
    if (result == 1) cdv_succeed(status);
    return result;
}

extern "C" int32_t cdv_openni2_take(cdv_openni2 *device, int32_t stream, cdv_frame *frame) {
    return cdv_slot_take(&device->slots[stream == CDV_DEPTH ? CDV_DEPTH : CDV_COLOR], frame);
}

extern "C" void cdv_openni2_close(cdv_openni2 *device) {
    if (device) release(device);
}
