"""scikit-learn's Ridge (Cholesky), LinearRegression (least squares) and multinomial LogisticRegression (L-BFGS)
on one data set, as a user fits them.  usage: sk_linear.py SIZE OUT.npz"""
import sys

import numpy as np
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge

rows, cols = {"small": (800, 60), "medium": (20000, 300), "large": (60000, 2500)}[sys.argv[1]]
rng = np.random.default_rng(3)
X = rng.standard_normal((rows, cols))
w = rng.standard_normal((cols, 4))
y = X @ w + 0.5 * rng.standard_normal((rows, 4))
labels = np.argmax(y, axis=1)
ridge = Ridge(alpha=1.0, solver="cholesky").fit(X, y)
ols = LinearRegression().fit(X, y)
logit = LogisticRegression(max_iter=200, tol=1e-10).fit(X, labels)
np.savez(sys.argv[2], ridge=ridge.coef_, ols=ols.coef_, ols_intercept=ols.intercept_, logit=logit.coef_)
