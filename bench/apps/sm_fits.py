"""statsmodels: an OLS fit (pinv, by SVD) and a Poisson GLM (IRLS) of a wide design, with their standard errors,
as a user fits them.  usage: sm_fits.py SIZE OUT.npz"""
import sys

import numpy as np
import statsmodels.api as sm

# (200000 x 1500 ran past 120 s a run on the H100 machine's CPU)
rows, cols = {"small": (1000, 20), "medium": (50000, 200), "large": (60000, 1000)}[sys.argv[1]]
rng = np.random.default_rng(13)
X = sm.add_constant(rng.standard_normal((rows, cols)) / np.sqrt(cols))
beta = rng.standard_normal(cols + 1) * 0.3
ols = sm.OLS(X @ beta + rng.standard_normal(rows), X).fit()
counts = rng.poisson(np.exp(X @ beta * 0.5))
glm = sm.GLM(counts, X, family=sm.families.Poisson()).fit(tol=1e-12)
np.savez(sys.argv[2], ols=ols.params, ols_se=ols.bse, glm=glm.params, glm_se=glm.bse)
