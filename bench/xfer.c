/* Throughput of the transfer engine (src/memory/xfer.c) against a plain cudaMemcpy from pageable memory: one matrix
 * of BYTES (default 1 GiB) from ordinary malloc'd memory to the device and back, best of REPEAT runs each;
 * then the same buffer once registered as a buffer used again is (src/memory/hostreg.c), and the registration's cost.
 * Linked with the library's objects, since the engine's functions are hidden in libgpushim.so.
 * Usage: xfer [MiB [repeat]]; prints one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cuda/device.h"
#include "../src/dispatch/dispatch.h"
#include "../src/memory/hostreg.h"
#include "../src/memory/xfer.h"

static double gbps(size_t bytes, uint64_t ns) { return (double)bytes / (double)ns; }

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 1024;
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    size_t bytes = mib << 20, width = (size_t)128 << 10, cols = bytes / width;
    gs_init();
    gs_call_t c = {.why = ""};
    if (gs_gpu_acquire(&c) != GS_OK) {
        fprintf(stderr, "xfer: no GPU: %s\n", c.why);
        return 1;
    }
    cudaStream_t up = gs_dev(&c)->up, down = gs_dev(&c)->down;
    char *dev, *host = malloc(bytes);
    if (!host || gs_cuda.cudaMalloc((void **)&dev, bytes) != 0) {
        fprintf(stderr, "xfer: cannot allocate %zu bytes\n", bytes);
        return 1;
    }
    memset(host, 1, bytes);
    gs_hreg_t h = {host, width, width, cols};
    double best[4] = {0, 0, 0, 0};
    for (int r = 0; r < repeat; r++) {
        uint64_t t0 = gs_now_ns();
        int rc = gs_xfer_put(&c, dev, width, &h);
        rc |= gs_cuda.cudaStreamSynchronize(up);
        uint64_t t1 = gs_now_ns();
        gs_xjob_t j = {0};
        rc |= gs_xfer_get(&c, &j, &h, dev, width);
        rc |= gs_xfer_finish(&c, &j);
        uint64_t t2 = gs_now_ns();
        rc |= gs_cuda.cudaMemcpy2DAsync(dev, width, host, width, width, cols, cudaMemcpyHostToDevice, up);
        rc |= gs_cuda.cudaStreamSynchronize(up);
        uint64_t t3 = gs_now_ns();
        rc |= gs_cuda.cudaMemcpy2DAsync(host, width, dev, width, width, cols, cudaMemcpyDeviceToHost, down);
        rc |= gs_cuda.cudaStreamSynchronize(down);
        uint64_t t4 = gs_now_ns();
        if (rc) {
            fprintf(stderr, "xfer: copy failed: %s\n", c.why);
            return 1;
        }
        double v[4] = {gbps(bytes, t1 - t0), gbps(bytes, t2 - t1), gbps(bytes, t3 - t2), gbps(bytes, t4 - t3)};
        for (int i = 0; i < 4; i++)
            best[i] = v[i] > best[i] ? v[i] : best[i];
    }
    /* Two uses register the buffer, as two calls copying it would. */
    gs_hostreg_use(host, bytes);
    uint64_t r0 = gs_now_ns();
    gs_hostreg_use(host, bytes);
    double reg_ms = (double)(gs_now_ns() - r0) * 1e-6, regd[2] = {0, 0};
    int registered = gs_hostreg_has(host, bytes);
    for (int r = 0; r < repeat && registered; r++) {
        uint64_t t0 = gs_now_ns();
        int rc = gs_xfer_put(&c, dev, width, &h) | gs_cuda.cudaStreamSynchronize(up);
        uint64_t t1 = gs_now_ns();
        gs_xjob_t j = {0};
        rc |= gs_xfer_get(&c, &j, &h, dev, width) | gs_xfer_finish(&c, &j);
        uint64_t t2 = gs_now_ns();
        if (rc) {
            fprintf(stderr, "xfer: copy failed: %s\n", c.why);
            return 1;
        }
        double v[2] = {gbps(bytes, t1 - t0), gbps(bytes, t2 - t1)};
        for (int i = 0; i < 2; i++)
            regd[i] = v[i] > regd[i] ? v[i] : regd[i];
    }
    printf("{\"bytes\": %zu, \"repeat\": %d, \"copy_threads\": %d, \"engine_h2d_gbps\": %.1f, "
           "\"engine_d2h_gbps\": %.1f, \"pageable_h2d_gbps\": %.1f, \"pageable_d2h_gbps\": %.1f, "
           "\"registered\": %d, \"register_ms\": %.1f, \"registered_h2d_gbps\": %.1f, "
           "\"registered_d2h_gbps\": %.1f}\n",
           bytes, repeat, gs.opt.copy_threads, best[0], best[1], best[2], best[3], registered, reg_ms, regd[0],
           regd[1]);
    gs_gpu_release();
    return 0;
}
