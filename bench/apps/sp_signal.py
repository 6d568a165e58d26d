"""scipy.signal on long noisy signals: Welch's spectral estimate, a convolution by FFT and a zero-phase
Butterworth filter, as an experimenter calls them.  Its FFTs are SciPy's own (pocketfft), which no interposed symbol
reaches: under LD_PRELOAD alone the run measures what gpushim costs a program it cannot speed up, and through the
Python layer (bench/apps/run.py --layer) what scipy.fft's backend gains it.  usage: sp_signal.py SIZE OUT.npz"""
import sys

import numpy as np
import scipy.signal as ss

n, channels = {"small": (1 << 14, 2), "medium": (1 << 20, 8), "large": (1 << 22, 16)}[sys.argv[1]]
rng = np.random.default_rng(19)
t = np.arange(n) / 1000.0
x = np.sin(2 * np.pi * 50 * t) + rng.standard_normal((channels, n))
f, pxx = ss.welch(x, fs=1000.0, nperseg=4096 if n >= 4096 else n // 4)
kernel = ss.windows.hann(1025)
y = ss.fftconvolve(x, kernel[None, :], mode="same", axes=1)
sos = ss.butter(8, [40, 60], btype="bandpass", fs=1000.0, output="sos")
z = ss.sosfiltfilt(sos, x, axis=1)
np.savez(sys.argv[2], pxx=pxx, conv=y[:, ::97], filtered=z[:, ::97])
