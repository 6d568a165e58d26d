-- gpushim @VERSION@ for Lmod: puts gpushim-run, gpushim-report and gpushim-calibrate on PATH and the manual
-- pages on MANPATH.  It preloads nothing and sets no GPUSHIM_ variable, so loading it changes no program's
-- results: a job opts in with `gpushim-run COMMAND` (or srun/mpirun ... gpushim-run COMMAND).
whatis("Name: gpushim")
whatis("Version: @VERSION@")
whatis("Description: runs the BLAS, LAPACK and FFTW calls of unmodified programs on NVIDIA GPUs")
help([[
gpushim @VERSION@: run a program's large BLAS, LAPACK and FFTW calls on the GPU, the rest on the CPU
library, with the same results.

  gpushim-run python script.py            one process
  srun gpushim-run --log run.%r.log prog  each rank on a GPU of its own, a log per rank
  gpushim-report run.*.log                what went where, per rank and per node

man gpushim-run, man gpushim (the variables, the log format).
]])
local prefix = "@PREFIX@"
prepend_path("PATH", pathJoin(prefix, "bin"))
prepend_path("MANPATH", pathJoin(prefix, "share/man"))
append_path("MANPATH", "") -- an empty entry: man still searches its default path
