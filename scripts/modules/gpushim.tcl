#%Module1.0
## gpushim @VERSION@ for Environment Modules (Tcl; Lmod reads it too): puts gpushim-run, gpushim-report and
## gpushim-calibrate on PATH and the manual pages on MANPATH.  It preloads nothing and sets no GPUSHIM_
## variable, so loading it changes no program's results: a job opts in with `gpushim-run COMMAND`.
proc ModulesHelp { } {
    puts stderr "gpushim @VERSION@: run a program's large BLAS, LAPACK and FFTW calls on the GPU, the rest on"
    puts stderr "the CPU library, with the same results."
    puts stderr ""
    puts stderr "  gpushim-run python script.py            one process"
    puts stderr "  srun gpushim-run --log run.%r.log prog  each rank on a GPU of its own, a log per rank"
    puts stderr "  gpushim-report run.*.log                what went where, per rank and per node"
    puts stderr ""
    puts stderr "man gpushim-run, man gpushim (the variables, the log format)."
}
module-whatis "gpushim @VERSION@: runs the BLAS, LAPACK and FFTW calls of unmodified programs on NVIDIA GPUs"
set prefix "@PREFIX@"
prepend-path PATH $prefix/bin
prepend-path MANPATH $prefix/share/man
# an empty entry: man still searches its default path
append-path MANPATH ""
