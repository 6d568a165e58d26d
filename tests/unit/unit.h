/* The unit tests' files other than test_unit.c, each adding its cases to the one suite. */
#ifndef GS_TEST_UNIT_H
#define GS_TEST_UNIT_H
#include <check.h>

/* The cost model's history (test_history.c). */
TCase *gs_test_history(void);
/* The team of loop threads (test_team.c). */
TCase *gs_test_team(void);
/* The memory hooks' filter (test_span.c). */
TCase *gs_test_span(void);

#endif
