"""scikit-learn's PCA (full SVD) and TruncatedSVD (randomized) of a data set with a decaying spectrum, as a
user fits them.  Saves what does not depend on the vectors' signs: explained variances, singular values and
the projector onto each fitted subspace.  usage: sk_decomposition.py SIZE OUT.npz"""
import sys

import numpy as np
from sklearn.decomposition import PCA, TruncatedSVD

rows, cols = {"small": (600, 80), "medium": (4000, 400), "large": (40000, 3000)}[sys.argv[1]]
rng = np.random.default_rng(7)
X = rng.standard_normal((rows, cols)) * np.linspace(1, 5, cols)
pca = PCA(n_components=20, svd_solver="full").fit(X)
svd = TruncatedSVD(n_components=20, algorithm="randomized", random_state=0).fit(X)
np.savez(sys.argv[2], pca_variance=pca.explained_variance_, pca_projector=pca.components_.T @ pca.components_,
         tsvd_values=svd.singular_values_, tsvd_projector=svd.components_.T @ svd.components_)
