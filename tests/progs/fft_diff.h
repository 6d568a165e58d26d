/* One precision of fft_diff.c: its case's plan through the program's own FFTW (the shim's, under LD_PRELOAD),
 * its executes, and the reference FFTW of the private namespace.  fft_diff.c defines R (the real type), P(x)
 * (the API's name of x) and PFX (the name prefix, "fftw_" or "fftwf_") before each inclusion. */

/* The basic planners: the rank's own (1d, 2d, 3d) or the rank-n one. */
static P(plan) P(plan_basic)(const case_t *c, const int *n, void *in, void *out)
{
    unsigned f = c->flags;
    bool own = c->basic_form == 0 && c->rank <= 3;
    if (c->kind == K_DFT) {
        P(complex) *i = in, *o = out;
        if (!own)
            return P(plan_dft)(c->rank, n, i, o, c->sign, f);
        return c->rank == 1 ? P(plan_dft_1d)(n[0], i, o, c->sign, f)
             : c->rank == 2 ? P(plan_dft_2d)(n[0], n[1], i, o, c->sign, f)
                            : P(plan_dft_3d)(n[0], n[1], n[2], i, o, c->sign, f);
    }
    if (c->kind == K_R2C) {
        R *i = in;
        P(complex) *o = out;
        if (!own)
            return P(plan_dft_r2c)(c->rank, n, i, o, f);
        return c->rank == 1 ? P(plan_dft_r2c_1d)(n[0], i, o, f)
             : c->rank == 2 ? P(plan_dft_r2c_2d)(n[0], n[1], i, o, f)
                            : P(plan_dft_r2c_3d)(n[0], n[1], n[2], i, o, f);
    }
    P(complex) *i = in;
    R *o = out;
    if (!own)
        return P(plan_dft_c2r)(c->rank, n, i, o, f);
    return c->rank == 1 ? P(plan_dft_c2r_1d)(n[0], i, o, f)
         : c->rank == 2 ? P(plan_dft_c2r_2d)(n[0], n[1], i, o, f)
                        : P(plan_dft_c2r_3d)(n[0], n[1], n[2], i, o, f);
}

static P(plan) P(plan_many)(const case_t *c, const int *n, void *in, void *out)
{
    const int *ie = c->nembed ? c->inembed : NULL, *oe = c->nembed ? c->onembed : NULL;
    if (c->kind == K_DFT)
        return P(plan_many_dft)(c->rank, n, c->howmany, in, ie, c->istride, c->idist, out, oe, c->ostride,
                                c->odist, c->sign, c->flags);
    if (c->kind == K_R2C)
        return P(plan_many_dft_r2c)(c->rank, n, c->howmany, in, ie, c->istride, c->idist, out, oe, c->ostride,
                                    c->odist, c->flags);
    return P(plan_many_dft_c2r)(c->rank, n, c->howmany, in, ie, c->istride, c->idist, out, oe, c->ostride,
                                c->odist, c->flags);
}

static P(plan) P(plan_guru)(const case_t *c, void *in, void *out)
{
    P(iodim) d[4], h[2];
    for (int i = 0; i < c->rank; i++)
        d[i] = (P(iodim)){(int)c->d[i].n, (int)c->d[i].is, (int)c->d[i].os};
    for (int i = 0; i < c->hrank; i++)
        h[i] = (P(iodim)){(int)c->h[i].n, (int)c->h[i].is, (int)c->h[i].os};
    if (c->kind == K_DFT)
        return P(plan_guru_dft)(c->rank, d, c->hrank, h, in, out, c->sign, c->flags);
    if (c->kind == K_R2C)
        return P(plan_guru_dft_r2c)(c->rank, d, c->hrank, h, in, out, c->flags);
    return P(plan_guru_dft_c2r)(c->rank, d, c->hrank, h, in, out, c->flags);
}

static P(plan) P(plan_guru64)(const case_t *c, void *in, void *out)
{
    if (c->kind == K_DFT)
        return P(plan_guru64_dft)(c->rank, c->d, c->hrank, c->h, in, out, c->sign, c->flags);
    if (c->kind == K_R2C)
        return P(plan_guru64_dft_r2c)(c->rank, c->d, c->hrank, c->h, in, out, c->flags);
    return P(plan_guru64_dft_c2r)(c->rank, c->d, c->hrank, c->h, in, out, c->flags);
}

/* The case's plan on in and out, through the planner it names. */
static void *P(plan_case)(const case_t *c, void *in, void *out)
{
    int n[4];
    for (int i = 0; i < c->rank; i++)
        n[i] = (int)c->d[i].n;
    switch (c->planner) {
    case PL_BASIC:
        return P(plan_basic)(c, n, in, out);
    case PL_MANY:
        return P(plan_many)(c, n, in, out);
    case PL_GURU:
        return P(plan_guru)(c, in, out);
    default:
        return P(plan_guru64)(c, in, out);
    }
}

/* fftw_execute on the plan's own arrays, or the kind's new-array execute on in and out. */
static void P(exec_case)(const case_t *c, void *plan, bool own, void *in, void *out)
{
    if (own)
        P(execute)(plan);
    else if (c->kind == K_DFT)
        P(execute_dft)(plan, in, out);
    else if (c->kind == K_R2C)
        P(execute_dft_r2c)(plan, in, out);
    else
        P(execute_dft_c2r)(plan, in, out);
}

static void P(destroy)(void *plan) { P(destroy_plan)(plan); }
static void P(threads)(int n) { P(plan_with_nthreads)(n); }
static int P(align)(void *p) { return P(alignment_of)(p); }

/* ---- the reference: the same library in a namespace of its own, which no preloaded library sees ---- */

static struct {
    __typeof__(&P(plan_guru64_dft)) dft;
    __typeof__(&P(plan_guru64_dft_r2c)) r2c;
    __typeof__(&P(plan_guru64_dft_c2r)) c2r;
    __typeof__(&P(execute)) execute;
    __typeof__(&P(destroy_plan)) destroy;
} P(ref);

/* 0 when h has every function the reference needs. */
static int P(ref_load)(void *h)
{
    P(ref).dft = (__typeof__(P(ref).dft))dlsym(h, PFX "plan_guru64_dft");
    P(ref).r2c = (__typeof__(P(ref).r2c))dlsym(h, PFX "plan_guru64_dft_r2c");
    P(ref).c2r = (__typeof__(P(ref).c2r))dlsym(h, PFX "plan_guru64_dft_c2r");
    P(ref).execute = (__typeof__(P(ref).execute))dlsym(h, PFX "execute");
    P(ref).destroy = (__typeof__(P(ref).destroy))dlsym(h, PFX "destroy_plan");
    return P(ref).dft && P(ref).r2c && P(ref).c2r && P(ref).execute && P(ref).destroy ? 0 : -1;
}

/* The reference's plan of kind with these dimensions, out of place, FFTW_ESTIMATE (which leaves the arrays
 * alone). */
static void *P(ref_plan)(int kind, int sign, int rank, const fftw_iodim64 *d, int hrank, const fftw_iodim64 *h,
                         void *in, void *out)
{
    if (kind == K_DFT)
        return P(ref).dft(rank, d, hrank, h, in, out, sign, FFTW_ESTIMATE);
    if (kind == K_R2C)
        return P(ref).r2c(rank, d, hrank, h, in, out, FFTW_ESTIMATE);
    return P(ref).c2r(rank, d, hrank, h, in, out, FFTW_ESTIMATE);
}

static void P(ref_exec)(void *plan) { P(ref).execute(plan); }
static void P(ref_destroy)(void *plan) { P(ref).destroy(plan); }

static const api_t P(api) = {
    .pfx = PFX,
    .es = sizeof(R),
    .eps = sizeof(R) == sizeof(double) ? DBL_EPSILON : FLT_EPSILON,
    .plan = P(plan_case),
    .exec = P(exec_case),
    .destroy = P(destroy),
    .threads = P(threads),
    .align = P(align),
    .ref_load = P(ref_load),
    .ref_plan = P(ref_plan),
    .ref_exec = P(ref_exec),
    .ref_destroy = P(ref_destroy),
};
