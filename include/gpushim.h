/* gpushim's programming interface.  Programs need none of it: loading libgpushim.so (LD_PRELOAD) is enough.
 * These calls let a program or a test ask the library about itself. */
#ifndef GPUSHIM_H
#define GPUSHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, such as "0.1.0". */
const char *gpushim_version(void);

#ifdef __cplusplus
}
#endif

#endif
