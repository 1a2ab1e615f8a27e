/*
 * C over the USB depth-camera libraries for CloudCapture: libusb (device discovery), libfreenect
 * (Kinect v1) and OpenNI2 (PrimeSense, Asus Xtion, Orbbec and .oni recordings).
 *
 * libusb, libfreenect and OpenNI2 are opened with dlopen at run time, not linked:
 *   - cloudgen then runs, and `cloudgen devices` can say what is missing, on a machine without
 *     them, and the commands that use no camera never load them (Docs/architecture.md, "Start-up");
 *   - libfreenect's fakenect playback library (which the tests use) has the real library's soname
 *     but exports fewer functions. Functions only the real one has (the calibration readout) are
 *     looked up one by one and used when present, so both run the same code.
 * Their callbacks and threads stay on this side: frames are copied into per-stream slots here and
 * handed to Swift on request. Every entry point reports failure through a cdv_status (a code and
 * one line of text, cstatus.h); nothing here prints or exits.
 */
#ifndef CDEVICES_H
#define CDEVICES_H

#include <stddef.h>
#include <stdint.h>
#include <cstatus.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The status every entry point reports through is cloudgen's one C status (cstatus.h); these
   are its codes as devices use them, the finer kinds of failure numbered from 16. */
enum {
    CDV_OK = CS_OK,
    /* The input is not what it should be (a corrupt .oni recording). */
    CDV_BAD_INPUT = CS_BAD_INPUT,
    /* The device or library failed, or the device went away while streaming. */
    CDV_FAILED = CS_IO_ERROR,
    /* The library (libusb, libfreenect, OpenNI2) is not installed. */
    CDV_UNAVAILABLE = 16,
    /* No device to open (none attached, or the index is beyond those attached). */
    CDV_NO_DEVICE = 17,
    /* The operating system refused access (a missing udev rule). */
    CDV_PERMISSION = 18,
    /* A recording or playback reached its end. */
    CDV_ENDED = 19
};

typedef cs_status cdv_status;

/* ---- USB discovery (libusb) ---- */

#define CDV_SERIAL_CAPACITY 128
#define CDV_MAX_PORTS 8

typedef struct cdv_usb_device {
    uint16_t vendor_id;
    uint16_t product_id;
    uint8_t bus;
    uint8_t address;
    uint8_t port_count;
    uint8_t ports[CDV_MAX_PORTS];
    /* Empty when the device has none or could not be opened to read it. */
    char serial[CDV_SERIAL_CAPACITY];
    /* CDV_OK, or why the device could not be opened to read its serial (CDV_PERMISSION, ...). */
    int32_t open_status;
} cdv_usb_device;

/* Lists up to `capacity` USB devices into `devices`; the serial number is read only for devices
   `wanted` says yes to (opening every hub and keyboard would be slow and pointless). Returns how
   many devices exist (possibly more than `capacity`), or -1 with `status` set when USB itself is
   unusable. */
typedef int32_t (*cdv_usb_filter)(uint16_t vendor_id, uint16_t product_id);
int32_t cdv_usb_list(cdv_usb_device *devices, int32_t capacity, cdv_usb_filter wanted, cdv_status *status);

/* ---- frames ---- */

typedef struct cdv_frame {
    int32_t width;
    int32_t height;
    int32_t bytes_per_pixel;
    /* The device's clock: libfreenect's 60 MHz ticks; OpenNI2's microseconds. */
    uint64_t timestamp;
    const void *data;
    size_t size;
} cdv_frame;

enum { CDV_DEPTH = 0, CDV_COLOR = 1 };

/* ---- Kinect v1 (libfreenect) ---- */

/* libfreenect's zero-plane constants and depth offset (libfreenect_registration.h). */
typedef struct cdv_kinect_calibration {
    double dcmos_emitter_dist;   /* cm, IR camera to IR projector */
    double dcmos_rcmos_dist;     /* cm, IR camera to RGB camera */
    double reference_distance;   /* mm, the IR camera's focal length */
    double reference_pixel_size; /* mm, one sensor pixel at full (1280) resolution */
    double const_shift;          /* raw units */
    /* 1 when read from the device, 0 when the defaults were kept (see cdv_kinect_open). */
    int32_t from_device;
} cdv_kinect_calibration;

typedef struct cdv_kinect cdv_kinect;

/* 1 when libfreenect can be loaded (fakenect's stand-in counts). */
int32_t cdv_kinect_installed(void);

/* Opens camera `index`, starts 640x480 11-bit depth and RGB. `calibration` comes in holding the
   defaults and is overwritten with the device's constants when this libfreenect can read them. */
cdv_kinect *cdv_kinect_open(int32_t index, cdv_kinect_calibration *calibration, cdv_status *status);

/* Lets libfreenect deliver what has arrived, waiting at most `timeout_ms`. Returns 0, or -1 with
   `status` set (CDV_FAILED: the device went away; CDV_ENDED: fakenect's recording ended). */
int32_t cdv_kinect_poll(cdv_kinect *kinect, int32_t timeout_ms, cdv_status *status);

/* 1 and the stream's newest frame not taken yet (valid until the next poll), or 0. */
int32_t cdv_kinect_take(cdv_kinect *kinect, int32_t stream, cdv_frame *frame);

void cdv_kinect_close(cdv_kinect *kinect);

/* ---- OpenNI2 devices and .oni recordings ---- */

typedef struct cdv_openni2 cdv_openni2;

typedef struct cdv_openni2_info {
    /* Radians, the color stream's (the depth is registered to it) or the depth stream's. */
    float horizontal_fov;
    float vertical_fov;
    int32_t is_file;
    /* 1 when the depth is registered to color (device registration on, or recorded so). */
    int32_t registered;
    int32_t has_color;
    /* Depth units: 1000 per metre (1 mm) or 10000 (100 um). */
    int32_t depth_units_per_metre;
    char uri[256];
    char name[128];
} cdv_openni2_info;

/* 1 when libOpenNI2 can be loaded. */
int32_t cdv_openni2_installed(void);

/* Opens `uri` (a device URI or an .oni file path; NULL: the first device), starts depth and, when
   present, RGB color, and turns depth-to-color registration on where the device supports it. */
cdv_openni2 *cdv_openni2_open(const char *uri, cdv_openni2_info *info, cdv_status *status);

/* Waits at most `timeout_ms` for a frame on either stream and reads it. Returns 1 when a frame
   was read, 0 on timeout, -1 with `status` set on failure. */
int32_t cdv_openni2_poll(cdv_openni2 *device, int32_t timeout_ms, cdv_status *status);

int32_t cdv_openni2_take(cdv_openni2 *device, int32_t stream, cdv_frame *frame);

void cdv_openni2_close(cdv_openni2 *device);

/* ---- Ctrl-C ---- */

/* From now on the first SIGINT only sets a flag (capture loops poll it and stop cleanly); a
   second one ends the process as usual. */
void cdv_interrupt_install(void);
int32_t cdv_interrupt_requested(void);

#ifdef __cplusplus
}
#endif

#endif
