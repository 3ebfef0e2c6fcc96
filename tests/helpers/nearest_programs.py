"""The running minimum over centroids that the numba reverse-mode rewrites of running extrema
are tested on (k-means' cost as loops), and its data: one copy for those test files."""

import math

import numpy as np


def nearest_cost(centroids, points):
    cost = 0.0
    for i in range(points.shape[0]):
        closest = math.inf
        for j in range(centroids.shape[0]):
            s = 0.0
            for t in range(points.shape[1]):
                s += (points[i, t] - centroids[j, t]) * (points[i, t] - centroids[j, t])
            closest = min(closest, s)
        cost += closest
    return cost


def nearest_data(k=5, n=17, d=3, seed=0):
    """(centroids, points) drawn from the normal distribution."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(k, d)), rng.normal(size=(n, d))
