# FFTW3 under the shim, CPU path: plans of every planner kind in both precisions are the real FFTW's, returned
# unchanged (NULL where FFTW returns NULL), so every result is bit for bit the one without the shim; the executes
# are logged with their routine, shape and kind and a reason for staying on the CPU, the planners are not.
. "$(dirname "$0")/lib.sh"
P=$T/fft_plans

$P >$W/plain.out
shim GPUSHIM_LOG=$W/fftw.log $P >$W/shim.out
check "every plan's results under the shim are bit for bit FFTW's own ($(wc -l <$W/plain.out) cases)" \
    sh -c "[ -s $W/plain.out ] && cmp -s $W/plain.out $W/shim.out"
check "a planner that returns NULL without the shim returns NULL under it (FFTW_WISDOM_ONLY, both precisions)" \
    sh -c "[ $(grep -c 'r2c wisdom only null$' $W/shim.out) = 2 ] && [ $(grep -c ' null$' $W/plain.out) = 2 ]"
check "the log is valid" $PY tests/logq.py check $W/fftw.log

for r in fftw_execute fftw_execute_dft fftw_execute_dft_r2c fftw_execute_dft_c2r; do
    for p in fftw fftwf; do
        rr=$p${r#fftw}
        check "$rr: its executes are logged, on the CPU" sh -c "
            [ $(count $W/fftw.log -- routine=$rr) -gt 10 ] && [ $(count $W/fftw.log -- routine=$rr where=gpu) = 0 ]"
    done
done
total=$(count $W/fftw.log)
check "the executes are the log's only calls: 2 per plan, none for the planners ($total records)" \
    test "$total" = $(( $(grep -vc ' null$' $W/plain.out) * 2 ))
check "the shapes: dft_3d 5x6x7 has n 210, kind dft, shape [5, 6, 7], direction F, in both precisions" sh -c "
    [ $(count $W/fftw.log -- routine=fftw_execute n=210 b=1 kind=dft 'shape=[[]5, 6, 7]' opts=F) = 1 ] &&
    [ $(count $W/fftw.log -- routine=fftwf_execute_dft n=210 b=1 kind=dft 'shape=[[]5, 6, 7]' opts=F) = 1 ]"
check "the shapes: an in-place c2r 5x6x7 is kind c2r, direction B in place (opts BI)" \
    test "$(count $W/fftw.log -- routine=fftw_execute_dft_c2r kind=c2r 'shape=[[]5, 6, 7]' opts=BI)" = 1
check "the shapes: plan_many_dft 6x10 x4 has n 60 and b 4; guru 16 x4x3 has b 12" sh -c "
    [ $(count $W/fftw.log -- routine=fftw_execute n=60 b=4 'shape=[[]6, 10]') = 1 ] &&
    [ $(count $W/fftw.log -- routine=fftw_execute n=16 b=12) = 1 ]"
check "flops: 5 N log2 N per transform, halved for r2c (1-D n = 4096: 245760 and 122880)" sh -c "
    [ $(count $W/fftw.log -- routine=fftw_execute n=4096 kind=dft flops=245760) = 4 ] &&
    [ $(count $W/fftw.log -- routine=fftw_execute n=4096 kind=r2c flops=122880) = 2 ]"
check "reasons: below threshold, rank above 3 (rank 4), howmany rank above 1 (guru), overlapping strides (guru64 c2r), never unknown plan" sh -c "
    [ $(count $W/fftw.log -- 'why=below threshold') -gt 300 ] &&
    [ $(count $W/fftw.log -- 'why=strides no advanced layout expresses' kind=c2r 'shape=[[]10, 10]') = 4 ] &&
    [ $(count $W/fftw.log -- 'why=rank above 3' 'shape=[[]3, 4, 5, 6]') = 4 ] &&
    [ $(count $W/fftw.log -- 'why=howmany rank above 1' n=16 b=12) = 4 ] &&
    [ $(count $W/fftw.log -- 'why=unknown plan') = 0 ]"
check "call sites: the executes come from the program's own functions (fft_plans:fftw_run, fftwf_run)" sh -c "
    [ $(count $W/fftw.log -- native=fft_plans:fftw_run) = $(count $W/fftw.log -- 'routine=fftw_*') ] &&
    [ $(count $W/fftw.log -- native=fft_plans:fftwf_run) = $(count $W/fftw.log -- 'routine=fftwf_*') ]"

# A plan the shim never saw made (through FFTW's own handle, as Julia's FFTW.jl plans): FFTW runs it, unknown.
$P handle >$W/handle.plain
shim GPUSHIM_LOG=$W/handle.log $P handle >$W/handle.shim
check "unknown plan: a plan made through FFTW's handle runs as FFTW runs it" \
    sh -c "[ -s $W/handle.plain ] && cmp -s $W/handle.plain $W/handle.shim"
check "unknown plan: its execute is logged with the reason, sizes 0 and no shape" \
    test "$(count $W/handle.log -- routine=fftw_execute 'why=unknown plan' n=0 b=0 shape=None)" = 1

# A plan made before fork is known in the child too (the registry's lock is reset there).
shim GPUSHIM_LOG=$W/fork.%p.log $P fork >$W/fork.out
check "fork: the child's execute of the parent's plan gives the parent's result" \
    sh -c "c=\$(sed -n 's/^child //p' $W/fork.out); [ -n \"\$c\" ] && [ \"\$c\" = \"\$(sed -n 's/^parent //p' $W/fork.out)\" ]"
check "fork: both executes logged with the plan's shape, in two processes" \
    sh -c "[ $(count $W/fork.*.log -- routine=fftw_execute 'shape=[[]64]' 'why=below threshold') = 2 ] && [ \$(ls $W/fork.*.log | wc -l) = 2 ]"
finish
