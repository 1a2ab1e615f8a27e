#include <errno.h>
#include <string.h>
#include <libusb-1.0/libusb.h>
#include "devices_internal.h"

static int32_t status_for(int error) {
    return error == LIBUSB_ERROR_ACCESS ? CDV_PERMISSION : error == LIBUSB_ERROR_NO_DEVICE ? CDV_NO_DEVICE : CDV_FAILED;
}

/* Reads the serial string of a device `wanted` picked; records why when it cannot be opened. */
static void read_serial(libusb_device *device, const struct libusb_device_descriptor *descriptor, cdv_usb_device *out) {
    libusb_device_handle *handle = NULL;
    int result = libusb_open(device, &handle);
    if (result != LIBUSB_SUCCESS) {
        out->open_status = status_for(result);
        return;
    }
    if (descriptor->iSerialNumber) {
        int length = libusb_get_string_descriptor_ascii(handle, descriptor->iSerialNumber,
                                                        (unsigned char *)out->serial, CDV_SERIAL_CAPACITY - 1);
        out->serial[length > 0 ? length : 0] = 0;
    }
    libusb_close(handle);
}

int32_t cdv_usb_list(cdv_usb_device *devices, int32_t capacity, cdv_usb_filter wanted, cdv_status *status) {
    libusb_context *context = NULL;
    int result = libusb_init(&context);
    if (result != LIBUSB_SUCCESS) {
        cdv_fail(status, CDV_FAILED, "libusb cannot start: %s", libusb_strerror(result));
        return -1;
    }
    libusb_device **list = NULL;
    ssize_t count = libusb_get_device_list(context, &list);
    if (count < 0) {
        cdv_fail(status, CDV_FAILED, "libusb cannot list devices: %s", libusb_strerror((int)count));
        libusb_exit(context);
        return -1;
    }
    for (ssize_t i = 0; i < count && i < capacity; i++) {
        cdv_usb_device *out = &devices[i];
        memset(out, 0, sizeof *out);
        struct libusb_device_descriptor descriptor;
        if (libusb_get_device_descriptor(list[i], &descriptor) != LIBUSB_SUCCESS) continue;
        out->vendor_id = descriptor.idVendor;
        out->product_id = descriptor.idProduct;
        out->bus = libusb_get_bus_number(list[i]);
        out->address = libusb_get_device_address(list[i]);
        int ports = libusb_get_port_numbers(list[i], out->ports, CDV_MAX_PORTS);
        out->port_count = ports > 0 ? (uint8_t)ports : 0;
        if (wanted && wanted(out->vendor_id, out->product_id)) read_serial(list[i], &descriptor, out);
    }
    libusb_free_device_list(list, 1);
    libusb_exit(context);
    cdv_succeed(status);
    return (int32_t)count;
}
