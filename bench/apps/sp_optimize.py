"""scipy.optimize.least_squares fitting a sum of Gaussians to many noisy observations, with an analytic dense
Jacobian and the exact trust-region solver (an SVD of the Jacobian each step), as a scientist fits a model.
usage: sp_optimize.py SIZE OUT.npz"""
import sys

import numpy as np
from scipy.optimize import least_squares

m, peaks = {"small": (2000, 10), "medium": (20000, 60), "large": (60000, 400)}[sys.argv[1]]
rng = np.random.default_rng(23)
x = np.linspace(0, 1, m)
centres = np.linspace(0.02, 0.98, peaks)
width = 0.5 / peaks


def model(p):
    return np.exp(-((x[:, None] - centres[None, :]) / width) ** 2) @ p


def jac(p):
    return np.exp(-((x[:, None] - centres[None, :]) / width) ** 2)


truth = rng.uniform(0.5, 2, peaks)
obs = model(truth) + 0.01 * rng.standard_normal(m)
fit = least_squares(lambda p: model(p) - obs, np.ones(peaks), jac=jac, method="trf", tr_solver="exact",
                    xtol=1e-14, ftol=1e-14, gtol=1e-14)
np.savez(sys.argv[2], params=fit.x, cost=np.array([fit.cost]))
