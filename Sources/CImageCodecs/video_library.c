#include <pthread.h>
#include "video_library.h"

CIC_DEFINE_LOADER(avutil, CIC_AVUTIL_FUNCTIONS, "libavutil.so.57", "libavutil57")
CIC_DEFINE_LOADER(avcodec, CIC_AVCODEC_FUNCTIONS, "libavcodec.so.59", "libavcodec59")
CIC_DEFINE_LOADER(avformat, CIC_AVFORMAT_FUNCTIONS, "libavformat.so.59", "libavformat59")

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

/* FFmpeg prints its complaints to stderr; the decoder reports each failure in its status instead. */
static void quiet(void) { av_log_set_level(AV_LOG_QUIET); }

int32_t cic_av_load(cic_status *status) {
    /* In dependency order: libavcodec needs libavutil, libavformat both. */
    if (cic_avutil_load(status) != CIC_OK || cic_avcodec_load(status) != CIC_OK || cic_avformat_load(status) != CIC_OK) {
        return status->code;
    }
    pthread_once(&quiet_once, quiet);
    return CIC_OK;
}
