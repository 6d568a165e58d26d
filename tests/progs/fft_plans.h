/* The cases of fft_plans.c for one precision: fft_plans.c defines R (the real type), P(x) (the API's name
 * of x) and NAME (a prefix for the case names) before each inclusion. */

/* Runs plan on the arrays it was planned with (execute), then on the second pair (the new-array execute of
 * its kind: 0 dft, 1 r2c, 2 c2r), printing a hash of each result; inplace: the second pair is one array. */
static void P(run)(const char *name, P(plan) plan, int kind, size_t in_reals, size_t out_reals, bool inplace)
{
    if (!plan) {
        printf("%s%s null\n", NAME, name);
        return;
    }
    R *in = (R *)P(bufs)[0], *out = inplace ? in : (R *)P(bufs)[1];
    R *in2 = (R *)P(bufs)[2], *out2 = inplace ? in2 : (R *)P(bufs)[3];
    fill(in, in_reals, sizeof(R), 1);
    P(execute)(plan);
    uint64_t h1 = hash(out, out_reals * sizeof(R));
    fill(in2, in_reals, sizeof(R), 2);
    if (kind == 0)
        P(execute_dft)(plan, (P(complex) *)in2, (P(complex) *)out2);
    else if (kind == 1)
        P(execute_dft_r2c)(plan, in2, (P(complex) *)out2);
    else
        P(execute_dft_c2r)(plan, (P(complex) *)in2, out2);
    printf("%s%s %016llx %016llx\n", NAME, name, (unsigned long long)h1,
           (unsigned long long)hash(out2, out_reals * sizeof(R)));
    P(destroy_plan)(plan);
}

static void P(cases)(void)
{
    for (int i = 0; i < 4; i++)
        P(bufs)[i] = P(malloc)(BUF_REALS * sizeof(R));
    P(complex) *a = (P(complex) *)P(bufs)[0], *b = (P(complex) *)P(bufs)[1];
    R *ra = (R *)P(bufs)[0], *rb = (R *)P(bufs)[1];
    const unsigned E = FFTW_ESTIMATE;
    char name[96];
    /* 1-D, both signs, in and out of place, sizes with large prime factors. */
    static const int sizes[] = {2, 7, 64, 97, 210, 1009, 4096, 3 * 1009};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        for (int s = -1; s <= 1; s += 2) {
            snprintf(name, sizeof name, "dft_1d n=%d sign=%d out", n, s);
            P(run)(name, P(plan_dft_1d)(n, a, b, s, E), 0, 2 * n, 2 * n, false);
            snprintf(name, sizeof name, "dft_1d n=%d sign=%d in", n, s);
            P(run)(name, P(plan_dft_1d)(n, a, a, s, E), 0, 2 * n, 2 * n, true);
        }
        snprintf(name, sizeof name, "r2c_1d n=%d out", n);
        P(run)(name, P(plan_dft_r2c_1d)(n, ra, b, E), 1, n, 2 * (n / 2 + 1), false);
        snprintf(name, sizeof name, "r2c_1d n=%d in", n);
        P(run)(name, P(plan_dft_r2c_1d)(n, ra, a, E), 1, 2 * (n / 2 + 1), 2 * (n / 2 + 1), true);
        snprintf(name, sizeof name, "c2r_1d n=%d out", n);
        P(run)(name, P(plan_dft_c2r_1d)(n, a, rb, E), 2, 2 * (n / 2 + 1), n, false);
        snprintf(name, sizeof name, "c2r_1d n=%d in", n);
        P(run)(name, P(plan_dft_c2r_1d)(n, a, ra, E), 2, 2 * (n / 2 + 1), 2 * (n / 2 + 1), true);
    }
    /* 2-D and 3-D, basic and rank-n. */
    P(run)("dft_2d 12x17", P(plan_dft_2d)(12, 17, a, b, FFTW_FORWARD, E), 0, 2 * 204, 2 * 204, false);
    P(run)("dft_2d 31x8 in", P(plan_dft_2d)(31, 8, a, a, FFTW_BACKWARD, E), 0, 2 * 248, 2 * 248, true);
    P(run)("dft_3d 5x6x7", P(plan_dft_3d)(5, 6, 7, a, b, FFTW_FORWARD, E), 0, 2 * 210, 2 * 210, false);
    static const int n3[] = {4, 9, 11}, n4[] = {3, 4, 5, 6};
    P(run)("dft rank 3", P(plan_dft)(3, n3, a, b, FFTW_BACKWARD, E), 0, 2 * 396, 2 * 396, false);
    P(run)("dft rank 4", P(plan_dft)(4, n4, a, b, FFTW_FORWARD, E), 0, 2 * 360, 2 * 360, false);
    P(run)("r2c_2d 12x17", P(plan_dft_r2c_2d)(12, 17, ra, b, E), 1, 204, 2 * 12 * 9, false);
    P(run)("r2c_2d 12x17 in", P(plan_dft_r2c_2d)(12, 17, ra, a, E), 1, 12 * 18, 12 * 18, true);
    P(run)("r2c_3d 5x6x7", P(plan_dft_r2c_3d)(5, 6, 7, ra, b, E), 1, 210, 2 * 30 * 4, false);
    P(run)("r2c rank 3", P(plan_dft_r2c)(3, n3, ra, b, E), 1, 396, 2 * 36 * 6, false);
    P(run)("c2r_2d 12x17", P(plan_dft_c2r_2d)(12, 17, a, rb, E), 2, 2 * 12 * 9, 204, false);
    P(run)("c2r_3d 5x6x7 in", P(plan_dft_c2r_3d)(5, 6, 7, a, ra, E), 2, 2 * 30 * 4, 2 * 30 * 4, true);
    P(run)("c2r rank 3", P(plan_dft_c2r)(3, n3, a, rb, E), 2, 2 * 36 * 6, 396, false);
    /* Advanced: howmany, strides and distances, embedded arrays. */
    static const int m1[] = {30}, m2[] = {6, 10}, emb[] = {8, 12};
    P(run)("many dft 30 x3 stride 2", P(plan_many_dft)(1, m1, 3, a, NULL, 2, 61, b, NULL, 1, 30, FFTW_FORWARD, E),
           0, 2 * 183, 2 * 90, false);
    P(run)("many dft 6x10 x4 embedded", P(plan_many_dft)(2, m2, 4, a, emb, 1, 96, b, emb, 1, 96, FFTW_BACKWARD, E),
           0, 2 * 384, 2 * 384, false);
    P(run)("many r2c 30 x5", P(plan_many_dft_r2c)(1, m1, 5, ra, NULL, 1, 30, b, NULL, 1, 16, E), 1, 150, 160, false);
    P(run)("many r2c 6x10 x2 in", P(plan_many_dft_r2c)(2, m2, 2, ra, NULL, 1, 72, a, NULL, 1, 36, E), 1, 144, 144,
           true);
    P(run)("many c2r 6x10 x3 stride 3", P(plan_many_dft_c2r)(2, m2, 3, a, NULL, 3, 1, rb, NULL, 3, 1, E), 2,
           2 * 108, 180, false);
    /* Guru and guru64: two howmany dimensions, transposing strides. */
    P(iodim) gd[] = {{16, 1, 8}}, gh[] = {{4, 16, 1}, {3, 64, 128}};
    P(run)("guru dft 16 x4x3", P(plan_guru_dft)(1, gd, 2, gh, a, b, FFTW_FORWARD, E), 0, 2 * 192, 2 * 384, false);
    P(iodim64) gd64[] = {{8, 9, 9}, {9, 1, 1}}, gh64[] = {{2, 72, 72}};
    P(run)("guru64 dft 8x9 x2 in", P(plan_guru64_dft)(2, gd64, 1, gh64, a, a, FFTW_BACKWARD, E), 0, 2 * 144,
           2 * 144, true);
    P(iodim) rd[] = {{20, 1, 1}}, rh[] = {{3, 20, 11}};
    P(run)("guru r2c 20 x3", P(plan_guru_dft_r2c)(1, rd, 1, rh, ra, b, E), 1, 60, 2 * 33, false);
    P(iodim64) cd64[] = {{10, 6, 6}, {10, 1, 1}}, ch64[] = {{2, 60, 100}};
    P(run)("guru64 c2r 10x10 x2", P(plan_guru64_dft_c2r)(2, cd64, 1, ch64, a, rb, E), 2, 2 * 120, 200, false);
    P(iodim) cd[] = {{7, 1, 1}};
    P(run)("guru c2r 7", P(plan_guru_dft_c2r)(1, cd, 0, NULL, a, rb, E), 2, 8, 7, false);
    P(iodim64) rd64[] = {{5, 2, 1}};
    P(run)("guru64 r2c 5 stride 2", P(plan_guru64_dft_r2c)(1, rd64, 0, NULL, ra, b, E), 1, 10, 6, false);
    /* No wisdom for this size: FFTW returns NULL, and so must the shim. */
    P(forget_wisdom)();
    P(run)("r2c wisdom only", P(plan_dft_r2c_1d)(4099, ra, b, FFTW_WISDOM_ONLY | FFTW_ESTIMATE), 1, 0, 0, false);
    for (int i = 0; i < 4; i++)
        P(free)(P(bufs)[i]);
    P(cleanup)();
}
