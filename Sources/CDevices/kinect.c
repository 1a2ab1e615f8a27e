#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <libfreenect.h>
#include <libfreenect_registration.h>
#include "devices_internal.h"

/* The libfreenect functions used, resolved by name. All of them exist in fakenect's library too. */
typedef struct freenect_api {
    int (*init)(freenect_context **, freenect_usb_context *);
    int (*shutdown)(freenect_context *);
    void (*set_log_level)(freenect_context *, freenect_loglevel);
    void (*set_log_callback)(freenect_context *, freenect_log_cb);
    void (*select_subdevices)(freenect_context *, freenect_device_flags);
    int (*num_devices)(freenect_context *);
    int (*open_device)(freenect_context *, freenect_device **, int);
    int (*close_device)(freenect_device *);
    void (*set_user)(freenect_device *, void *);
    void *(*get_user)(freenect_device *);
    void (*set_depth_callback)(freenect_device *, freenect_depth_cb);
    void (*set_video_callback)(freenect_device *, freenect_video_cb);
    freenect_frame_mode (*find_depth_mode)(freenect_resolution, freenect_depth_format);
    freenect_frame_mode (*find_video_mode)(freenect_resolution, freenect_video_format);
    int (*set_depth_mode)(freenect_device *, const freenect_frame_mode);
    int (*set_video_mode)(freenect_device *, freenect_frame_mode);
    int (*start_depth)(freenect_device *);
    int (*start_video)(freenect_device *);
    int (*stop_depth)(freenect_device *);
    int (*stop_video)(freenect_device *);
    int (*process_events_timeout)(freenect_context *, struct timeval *);
} freenect_api;

static const char *const api_names[] = {
    "freenect_init", "freenect_shutdown", "freenect_set_log_level", "freenect_set_log_callback",
    "freenect_select_subdevices", "freenect_num_devices", "freenect_open_device", "freenect_close_device",
    "freenect_set_user", "freenect_get_user", "freenect_set_depth_callback", "freenect_set_video_callback",
    "freenect_find_depth_mode", "freenect_find_video_mode", "freenect_set_depth_mode", "freenect_set_video_mode",
    "freenect_start_depth", "freenect_start_video", "freenect_stop_depth", "freenect_stop_video",
    "freenect_process_events_timeout",
};
/* cdv_library_load fills the struct as an array of pointers, one per name. */
_Static_assert(sizeof(freenect_api) == sizeof api_names / sizeof api_names[0] * sizeof(void *),
               "freenect_api and api_names must list the same functions");

/* Only the real library has these (fakenect has no calibration to give). */
typedef freenect_registration (*copy_registration_fn)(freenect_device *);
typedef int (*destroy_registration_fn)(freenect_registration *);

struct cdv_kinect {
    void *library;
    freenect_api api;
    freenect_context *context;
    freenect_device *device;
    cdv_slot slots[2];
    int32_t out_of_memory;
};

/* libfreenect logs through one callback per process without a user pointer; its last error
   completes our messages instead of going to stderr on its own. */
static char last_log[160];

static void keep_log(freenect_context *context, freenect_loglevel level, const char *message) {
    (void)context;
    if (level > FREENECT_LOG_ERROR) return;
    snprintf(last_log, sizeof last_log, "%s", message);
}

static void *load(freenect_api *api, cdv_status *status) {
    static const char *const sonames[] = {"libfreenect.so.0.5", "libfreenect.so", NULL};
    return cdv_library_load(sonames, "libfreenect0.5", api_names, sizeof api_names / sizeof api_names[0], (void **)api, status);
}

static int32_t start_context(cdv_kinect *kinect, cdv_status *status) {
    last_log[0] = 0;
    if (kinect->api.init(&kinect->context, NULL) < 0) {
        kinect->context = NULL;
        return cdv_fail(status, CDV_FAILED, "libfreenect cannot start USB: %s", last_log[0] ? last_log : "freenect_init failed");
    }
    kinect->api.set_log_callback(kinect->context, keep_log);
    kinect->api.set_log_level(kinect->context, FREENECT_LOG_ERROR);
    /* The camera only: the motor and audio need neither opening nor (audio) firmware. */
    kinect->api.select_subdevices(kinect->context, FREENECT_DEVICE_CAMERA);
    return CDV_OK;
}

static void release(cdv_kinect *kinect) {
    if (kinect->device) kinect->api.close_device(kinect->device);
    if (kinect->context) kinect->api.shutdown(kinect->context);
    if (kinect->library) dlclose(kinect->library);
    cdv_slot_free(&kinect->slots[0]);
    cdv_slot_free(&kinect->slots[1]);
    free(kinect);
}

int32_t cdv_kinect_installed(void) {
    freenect_api api;
    cdv_status status;
    void *library = load(&api, &status);
    if (library) dlclose(library);
    return library != NULL;
}

/* Callbacks get the device only; its user pointer (set to our handle) is read through this. */
static void *(*get_user)(freenect_device *);

static void store(freenect_device *device, int32_t stream, const void *data, uint32_t timestamp) {
    cdv_kinect *kinect = get_user(device);
    /* 640x480: 11-bit depth unpacked to uint16 in host order, or RGB8. */
    int32_t bytes_per_pixel = stream == CDV_DEPTH ? 2 : 3;
    if (cdv_slot_store(&kinect->slots[stream], data, (size_t)640 * bytes_per_pixel, 640, 480,
                       bytes_per_pixel, timestamp) != 0) {
        kinect->out_of_memory = 1;
    }
}

static void on_depth(freenect_device *device, void *data, uint32_t timestamp) {
    store(device, CDV_DEPTH, data, timestamp);
}

static void on_video(freenect_device *device, void *data, uint32_t timestamp) {
    store(device, CDV_COLOR, data, timestamp);
}

/* The real library's zero-plane constants and depth offset for this device; fakenect has none. */
static void read_calibration(cdv_kinect *kinect, cdv_kinect_calibration *calibration) {
    copy_registration_fn copy = (copy_registration_fn)dlsym(kinect->library, "freenect_copy_registration");
    destroy_registration_fn destroy = (destroy_registration_fn)dlsym(kinect->library, "freenect_destroy_registration");
    if (!copy || !destroy) return;
    freenect_registration registration = copy(kinect->device);
    freenect_zero_plane_info *zero = &registration.zero_plane_info;
    /* A device that answered nothing leaves zeros; keep the defaults then. */
    if (zero->reference_distance > 0 && zero->reference_pixel_size > 0 && zero->dcmos_emitter_dist > 0) {
        calibration->dcmos_emitter_dist = zero->dcmos_emitter_dist;
        calibration->dcmos_rcmos_dist = zero->dcmos_rcmos_dist;
        calibration->reference_distance = zero->reference_distance;
        calibration->reference_pixel_size = zero->reference_pixel_size;
        calibration->const_shift = registration.const_shift;
        calibration->from_device = 1;
    }
    destroy(&registration);
}

cdv_kinect *cdv_kinect_open(int32_t index, cdv_kinect_calibration *calibration, cdv_status *status) {
    cdv_kinect *kinect = calloc(1, sizeof *kinect);
    if (!kinect) return cdv_fail(status, CDV_FAILED, "out of memory"), NULL;
    kinect->library = load(&kinect->api, status);
    if (!kinect->library || start_context(kinect, status) != CDV_OK) {
        release(kinect);
        return NULL;
    }
    int count = kinect->api.num_devices(kinect->context);
    if (count <= index) {
        cdv_fail(status, CDV_NO_DEVICE, count <= 0 ? "no Kinect is attached" : "only %d Kinect%s attached (indices from 0)",
                 count, count == 1 ? " is" : "s are");
        release(kinect);
        return NULL;
    }
    last_log[0] = 0;
    if (kinect->api.open_device(kinect->context, &kinect->device, index) < 0) {
        kinect->device = NULL;
        cdv_fail(status, CDV_FAILED, "cannot open the Kinect: %s", last_log[0] ? last_log : "freenect_open_device failed");
        release(kinect);
        return NULL;
    }
    get_user = kinect->api.get_user;
    kinect->api.set_user(kinect->device, kinect);
    kinect->api.set_depth_callback(kinect->device, on_depth);
    kinect->api.set_video_callback(kinect->device, on_video);
    /* 11-bit raw depth: fakenect plays back nothing else (asking it for millimetres aborts), and
       the same path on a real camera keeps the tests honest. */
    freenect_frame_mode depth = kinect->api.find_depth_mode(FREENECT_RESOLUTION_MEDIUM, FREENECT_DEPTH_11BIT);
    freenect_frame_mode video = kinect->api.find_video_mode(FREENECT_RESOLUTION_MEDIUM, FREENECT_VIDEO_RGB);
    if (!depth.is_valid || !video.is_valid || kinect->api.set_depth_mode(kinect->device, depth) < 0 ||
        kinect->api.set_video_mode(kinect->device, video) < 0) {
        cdv_fail(status, CDV_FAILED, "the Kinect refuses 640x480 depth and RGB modes");
        release(kinect);
        return NULL;
    }
    read_calibration(kinect, calibration);
    if (kinect->api.start_depth(kinect->device) < 0 || kinect->api.start_video(kinect->device) < 0) {
        cdv_fail(status, CDV_FAILED, "the Kinect does not start streaming: %s", last_log[0] ? last_log : "no reason given");
        release(kinect);
        return NULL;
    }
    cdv_succeed(status);
    return kinect;
}

int32_t cdv_kinect_poll(cdv_kinect *kinect, int32_t timeout_ms, cdv_status *status) {
    struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    last_log[0] = 0;
    int result = kinect->api.process_events_timeout(kinect->context, &timeout);
    if (kinect->out_of_memory) return cdv_fail(status, CDV_FAILED, "out of memory copying a frame"), -1;
    if (result < 0) {
        /* fakenect's playback returns -1 once its INDEX.txt is used up. */
        const char *recording = getenv("FAKENECT_PATH");
        if (recording) {
            cdv_fail(status, CDV_ENDED, "the fakenect recording %s has no more frames", recording);
        } else {
            cdv_fail(status, CDV_FAILED, "the Kinect stopped streaming (unplugged?): %s",
                     last_log[0] ? last_log : "libusb reported an error");
        }
        return -1;
    }
    cdv_succeed(status);
    return 0;
}

int32_t cdv_kinect_take(cdv_kinect *kinect, int32_t stream, cdv_frame *frame) {
    return cdv_slot_take(&kinect->slots[stream == CDV_DEPTH ? CDV_DEPTH : CDV_COLOR], frame);
}

void cdv_kinect_close(cdv_kinect *kinect) {
    if (!kinect) return;
    if (kinect->device) {
        kinect->api.stop_depth(kinect->device);
        kinect->api.stop_video(kinect->device);
    }
    release(kinect);
}
