/* fft_other.c's plans for one precision: P(x) is fftw_x or fftwf_x, R the real type, NAME the prefix printed. */

static R P(a)[4 * N * N * N], P(b)[4 * N * N * N], P(c)[4 * N * N * N], P(d)[4 * N * N * N];

/* Executes p twice, then once through the new-array execute of its kind, and prints a hash of out's n reals. */
static void P(run)(const char *name, P(plan) p, const R *out, size_t n)
{
    if (!p) {
        printf("%s %s null\n", NAME, name);
        return;
    }
    P(execute)(p);
    P(execute)(p);
    if (strstr(name, "r2r"))
        P(execute_r2r)(p, P(a), P(b));
    else if (strcmp(name, "split_dft") == 0)
        P(execute_split_dft)(p, P(a), P(c), P(b), P(d));
    else if (strcmp(name, "split_r2c") == 0)
        P(execute_split_dft_r2c)(p, P(a), P(b), P(d));
    else
        P(execute_split_dft_c2r)(p, P(a), P(c), P(b));
    printf("%s %s %016llx\n", NAME, name, (unsigned long long)hash(out, n * sizeof *out));
    P(destroy_plan)(p);
}

static void P(all)(void)
{
    R *a = P(a), *b = P(b), *c = P(c), *d = P(d);
    for (int i = 0; i < 4 * N * N * N; i++)
        a[i] = (R)((i * 37) % 101) / 50 - 1, c[i] = (R)((i * 11) % 53) / 26 - 1;
    const int n[] = {N, N, N};
    const P(r2r_kind) k[] = {FFTW_REDFT10, FFTW_RODFT00, FFTW_DHT};
    P(iodim) dim = {N, 1, 1}, how = {4, N, N};
    P(iodim64) dim64 = {N, 1, 1}, how64 = {4, N, N};
    const unsigned E = FFTW_ESTIMATE;
    P(run)("r2r_1d", P(plan_r2r_1d)(N, a, b, FFTW_REDFT00, E), b, N);
    P(run)("r2r_2d", P(plan_r2r_2d)(N, N, a, b, k[0], k[1], E), b, N * N);
    P(run)("r2r_3d", P(plan_r2r_3d)(N, N, N, a, b, k[0], k[1], k[2], E), b, N * N * N);
    P(run)("r2r", P(plan_r2r)(2, n, a, b, k, E), b, N * N);
    P(run)("many_r2r", P(plan_many_r2r)(1, n, 4, a, NULL, 1, N, b, NULL, 1, N, k + 2, E), b, 4 * N);
    P(run)("guru_r2r", P(plan_guru_r2r)(1, &dim, 1, &how, a, b, k, E), b, 4 * N);
    P(run)("guru64_r2r", P(plan_guru64_r2r)(1, &dim64, 1, &how64, a, b, k, E), b, 4 * N);
    P(run)("split_dft", P(plan_guru_split_dft)(1, &dim, 1, &how, a, c, b, d, E), d, 4 * N);
    P(run)("split_r2c", P(plan_guru_split_dft_r2c)(1, &dim, 1, &how, a, b, d, E), d, 4 * N);
    P(run)("split_c2r", P(plan_guru64_split_dft_c2r)(1, &dim64, 1, &how64, a, c, b, E), b, 4 * N);
}
