"""pyFFTW: diffusion of a 3D field by its spectrum, a step being rfftn, a multiply and irfftn, through
pyfftw.builders with FFTW_MEASURE plans and FFTW's threads, as a spectral code steps in time.  usage:
pyfftw_spectral.py SIZE OUT.npz"""
import os
import sys

import numpy as np
import pyfftw

n, steps = {"small": (32, 10), "medium": (128, 20), "large": (256, 40)}[sys.argv[1]]
threads = os.cpu_count()
field = pyfftw.empty_aligned((n, n, n), dtype="float64")
field[:] = np.random.default_rng(29).standard_normal((n, n, n))
forward = pyfftw.builders.rfftn(field, planner_effort="FFTW_MEASURE", threads=threads)
spectrum = forward.output_array
backward = pyfftw.builders.irfftn(spectrum, s=field.shape, planner_effort="FFTW_MEASURE", threads=threads)
k = np.fft.fftfreq(n) * n
kz = np.fft.rfftfreq(n) * n
decay = np.exp(-1e-3 * (k[:, None, None] ** 2 + k[None, :, None] ** 2 + kz[None, None, :] ** 2))
field[:] = np.random.default_rng(29).standard_normal((n, n, n))  # planning overwrote it
for _ in range(steps):
    forward()
    spectrum *= decay
    field[:] = backward()
np.savez(sys.argv[2], norm=np.array([np.linalg.norm(field)]), plane=field[n // 2, ::4, ::4])
