/* The transfer engine: moves column-major host matrices to and from the device near the speed of the host's
 * memory, where a plain cudaMemcpy from pageable memory runs at about 8 GB/s.  A persistent pool of copy
 * threads packs pieces of a matrix into reusable pinned staging buffers while the copy engines move earlier
 * pieces; downloads land in staging and the threads unpack them into user memory. */
#ifndef GS_XFER_H
#define GS_XFER_H

#include "cuda/device.h"

/* A region of a column-major host matrix: cols columns of width bytes, ld bytes apart. */
typedef struct {
    char *host;
    size_t width, ld, cols;
} gs_hreg_t;

/* The downloads of one call, finished together by gs_xfer_finish.  Zero-initialise. */
typedef struct {
    int pending; /* tasks not yet done; guarded by the engine's lock */
    int err;     /* first error of a task, GS_OK if none; guarded by the engine's lock */
    bool direct; /* a download went straight into registered or pageable memory: sync the stream */
    char why[200];
} gs_xjob_t;

/* Starts the engine of device slot dev at its bring-up (its staging buffers; its threads at its first copy);
 * with the GPU lock held.
 * When pinned memory or threads cannot be had, the engine copies directly from pageable memory instead
 * (slower, still correct), after one notice.  Each device has an engine of its own; the functions below use
 * that of the call's device (c->dev). */
GS_HIDDEN void gs_xfer_start(int dev);

/* Bytes from the first to the last byte of region h. */
static inline size_t gs_hreg_extent(const gs_hreg_t *h)
{
    return h->cols ? h->ld * (h->cols - 1) + h->width : 0;
}

/* Copies region h to dev (dpitch bytes between columns) on the upload stream.  Returns once the copies are
 * queued and every byte of h has been read, except from registered memory (hostreg.h), which the copy
 * engine reads later, straight from h: the caller must not return before the upload stream has passed
 * them (every upload is followed by computation that a download or a synchronisation waits for).  The
 * caller orders later work after the copies with GS_EV_UP.  Adds the bytes to c->bytes_h2d. */
GS_HIDDEN int gs_xfer_put(gs_call_t *c, char *dev, size_t dpitch, const gs_hreg_t *h);

/* Queues a copy of dev to region h on the download stream (after whatever the caller made that stream wait
 * for) and returns; copy threads write h when the data has arrived.  Every job given to gs_xfer_get must be
 * passed to gs_xfer_finish, on error paths too, before the call returns. */
GS_HIDDEN int gs_xfer_get(gs_call_t *c, gs_xjob_t *j, const gs_hreg_t *h, const char *dev, size_t dpitch);

/* Waits until every download of j has been written to host memory, or abandoned after an error.  Returns
 * the first error (reason in c->why) or 0. */
GS_HIDDEN int gs_xfer_finish(gs_call_t *c, gs_xjob_t *j);

#endif
