/* The test stand-in for the CUDA runtime and cuBLAS: "device" memory is host memory from its own allocator.
 * Every device pointer it is handed is checked against that allocator, every transfer is counted, faults
 * can be injected, and a report is appended at exit.  A test double only: it proves routing, bookkeeping and
 * failure paths, never GPU speed or GPU correctness.
 *
 * Environment:
 *   GS_STANDIN_REPORT=FILE    append "pid=… h2d_bytes=… d2h_bytes=… … violations=…" at exit
 *   GS_STANDIN_FAIL=F[:N],…   make function F fail on its N-th call (every call when N is 0 or absent)
 *   GS_STANDIN_STICKY=1       after an injected failure every later call fails too (a lost device)
 *   GS_STANDIN_DEVICES=N      devices reported (default 1; 0 gives cudaErrorNoDevice)
 *   GS_STANDIN_NODRIVER=1     cudaGetDeviceCount fails as it does without a driver
 *   GS_STANDIN_MEM=BYTES      device memory size (default 64 GiB)
 */
#ifndef GS_STANDIN_H
#define GS_STANDIN_H

#include <stddef.h>
#include <stdint.h>

/* 0 when [p, p + bytes) lies inside one live allocation; otherwise records a violation naming fn and what. */
int standin_check_device(const void *p, size_t bytes, const char *fn, const char *what);
/* 0 when p is not device memory (a host pointer); otherwise records a violation. */
int standin_check_host(const void *p, const char *fn, const char *what);
/* True when function fn must fail now (fault injection); counts the call and checks the calling process. */
int standin_fail(const char *fn);
/* Records a violation: fn did something a real CUDA library would not accept. */
void standin_violation(const char *fn, const char *what);
/* Counts one library call for the report. */
void standin_count_blas(void);

#endif
