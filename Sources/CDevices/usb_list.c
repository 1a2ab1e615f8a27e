#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <libusb-1.0/libusb.h>
#include "devices_internal.h"

/* libusb is opened on the first listing rather than linked, like libfreenect and OpenNI2: only
   `cloudgen devices` and the camera sources use it, and every other command would load it at start
   (Docs/architecture.md, "Start-up"). Each pointer has the type of the declaration in libusb.h. */
typedef struct usb_api {
    __typeof__(libusb_init) *init;
    __typeof__(libusb_exit) *exit;
    __typeof__(libusb_strerror) *strerror;
    __typeof__(libusb_get_device_list) *get_device_list;
    __typeof__(libusb_free_device_list) *free_device_list;
    __typeof__(libusb_get_device_descriptor) *get_device_descriptor;
    __typeof__(libusb_get_bus_number) *get_bus_number;
    __typeof__(libusb_get_device_address) *get_device_address;
    __typeof__(libusb_get_port_numbers) *get_port_numbers;
    __typeof__(libusb_open) *open;
    __typeof__(libusb_close) *close;
    __typeof__(libusb_get_string_descriptor_ascii) *get_string_descriptor_ascii;
} usb_api;

static const char *const usb_names[] = {
    "libusb_init", "libusb_exit", "libusb_strerror", "libusb_get_device_list", "libusb_free_device_list",
    "libusb_get_device_descriptor", "libusb_get_bus_number", "libusb_get_device_address",
    "libusb_get_port_numbers", "libusb_open", "libusb_close", "libusb_get_string_descriptor_ascii",
};
/* cdv_library_load fills the struct as an array of pointers, one per name. */
_Static_assert(sizeof(usb_api) == sizeof usb_names / sizeof usb_names[0] * sizeof(void *),
               "usb_api and usb_names must list the same functions");

static usb_api usb;
static cdv_status usb_load_status;
static pthread_once_t usb_once = PTHREAD_ONCE_INIT;

static void load_usb(void) {
    static const char *const sonames[] = {"libusb-1.0.so.0", "libusb-1.0.so", NULL};
    cdv_library_load(sonames, "libusb-1.0-0", usb_names, sizeof usb_names / sizeof usb_names[0], (void **)&usb, &usb_load_status);
}

static int32_t status_for(int error) {
    return error == LIBUSB_ERROR_ACCESS ? CDV_PERMISSION : error == LIBUSB_ERROR_NO_DEVICE ? CDV_NO_DEVICE : CDV_FAILED;
}

/* Reads the serial string of a device `wanted` picked; records why when it cannot be opened. */
static void read_serial(libusb_device *device, const struct libusb_device_descriptor *descriptor, cdv_usb_device *out) {
    libusb_device_handle *handle = NULL;
    int result = usb.open(device, &handle);
    if (result != LIBUSB_SUCCESS) {
        out->open_status = status_for(result);
        return;
    }
    if (descriptor->iSerialNumber) {
        int length = usb.get_string_descriptor_ascii(handle, descriptor->iSerialNumber,
                                                     (unsigned char *)out->serial, CDV_SERIAL_CAPACITY - 1);
        out->serial[length > 0 ? length : 0] = 0;
    }
    usb.close(handle);
}

int32_t cdv_usb_list(cdv_usb_device *devices, int32_t capacity, cdv_usb_filter wanted, cdv_status *status) {
    pthread_once(&usb_once, load_usb);
    if (usb_load_status.code != CDV_OK) {
        *status = usb_load_status;
        return -1;
    }
    libusb_context *context = NULL;
    int result = usb.init(&context);
    if (result != LIBUSB_SUCCESS) {
        cdv_fail(status, CDV_FAILED, "libusb cannot start: %s", usb.strerror(result));
        return -1;
    }
    libusb_device **list = NULL;
    ssize_t count = usb.get_device_list(context, &list);
    if (count < 0) {
        cdv_fail(status, CDV_FAILED, "libusb cannot list devices: %s", usb.strerror((int)count));
        usb.exit(context);
        return -1;
    }
    for (ssize_t i = 0; i < count && i < capacity; i++) {
        cdv_usb_device *out = &devices[i];
        memset(out, 0, sizeof *out);
        struct libusb_device_descriptor descriptor;
        if (usb.get_device_descriptor(list[i], &descriptor) != LIBUSB_SUCCESS) continue;
        out->vendor_id = descriptor.idVendor;
        out->product_id = descriptor.idProduct;
        out->bus = usb.get_bus_number(list[i]);
        out->address = usb.get_device_address(list[i]);
        int ports = usb.get_port_numbers(list[i], out->ports, CDV_MAX_PORTS);
        out->port_count = ports > 0 ? (uint8_t)ports : 0;
        if (wanted && wanted(out->vendor_id, out->product_id)) read_serial(list[i], &descriptor, out);
    }
    usb.free_device_list(list, 1);
    usb.exit(context);
    cdv_succeed(status);
    return (int32_t)count;
}
