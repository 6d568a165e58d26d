"""scikit-learn's GaussianProcessRegressor with a fixed RBF kernel plus noise: fit (the kernel matrix's
Cholesky factor) and predict with standard deviations, as a user calls them.  usage: sk_gaussian_process.py
SIZE OUT.npz"""
import sys

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, WhiteKernel

n = {"small": 300, "medium": 2000, "large": 14000}[sys.argv[1]]
rng = np.random.default_rng(5)
X = rng.uniform(-3, 3, (n, 4))
y = np.sin(X).sum(1) + 0.1 * rng.standard_normal(n)
gp = GaussianProcessRegressor(RBF(1.0) + WhiteKernel(0.01), optimizer=None, normalize_y=True).fit(X, y)
Xt = rng.uniform(-3, 3, (n // 4, 4))
mean, std = gp.predict(Xt, return_std=True)
np.savez(sys.argv[2], mean=mean, std=std, log_likelihood=np.array([gp.log_marginal_likelihood_value_]))
