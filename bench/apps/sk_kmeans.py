"""scikit-learn's KMeans (Lloyd's algorithm) from given initial centres, as a user clusters.  usage: sk_kmeans.py
SIZE OUT.npz"""
import sys

import numpy as np
from sklearn.cluster import KMeans

n, d, k = {"small": (3000, 16, 8), "medium": (100000, 32, 32), "large": (1000000, 64, 256)}[sys.argv[1]]
rng = np.random.default_rng(11)
X = rng.standard_normal((n, d)) + rng.integers(0, 4, (n, 1))
km = KMeans(n_clusters=k, init=X[:k].copy(), n_init=1, max_iter=30, tol=0, algorithm="lloyd").fit(X)
np.savez(sys.argv[2], centres=np.sort(km.cluster_centers_, axis=0), inertia=np.array([km.inertia_]))
