"""scikit-learn's PCA, TruncatedSVD, Ridge and LinearRegression on one data set, as a user fits them, for the
shim's tests (issue 46: PCA of a 20000 x 2000 matrix corrupted the heap on the H200 machine).  Saves results
that do not depend on the signs of singular vectors (explained variances, singular values, the projector onto
each fitted subspace, coefficients) to RESULT.npz for tests/py/compare.py.

usage: python sklearn_models.py RESULT.npz [ROWS COLS]   (default 20000 2000; the CI's runs use smaller)
"""
import sys

import numpy as np
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.linear_model import LinearRegression, Ridge

rows, cols = (int(a) for a in sys.argv[2:4]) if len(sys.argv) > 3 else (20000, 2000)
rng = np.random.default_rng(7)
X = rng.standard_normal((rows, cols)) @ np.diag(np.linspace(1, 5, cols))
w = rng.standard_normal((cols, 3))
y = X @ w + 0.1 * rng.standard_normal((rows, 3))


def projector(components):
    """the projector onto the span of the rows: the same for any signs"""
    return components.T @ components


out = {}
pca = PCA(n_components=20, svd_solver="full").fit(X)
out["pca_variance"] = pca.explained_variance_
out["pca_projector"] = projector(pca.components_)
for algorithm in ("arpack", "randomized"):
    svd = TruncatedSVD(n_components=20, algorithm=algorithm, random_state=0).fit(X)
    out[f"tsvd_{algorithm}_values"] = svd.singular_values_
    out[f"tsvd_{algorithm}_projector"] = projector(svd.components_)
for solver in ("auto", "svd"):
    ridge = Ridge(alpha=1.0, solver=solver).fit(X, y)
    out[f"ridge_{solver}_coef"] = ridge.coef_
    out[f"ridge_{solver}_intercept"] = ridge.intercept_
ols = LinearRegression().fit(X, y)
out["ols_coef"] = ols.coef_
out["ols_intercept"] = ols.intercept_
np.savez(sys.argv[1], **out)
print(f"sklearn_models: {len(out)} results of a {rows} x {cols} matrix")
