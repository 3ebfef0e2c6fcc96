"""GradBench `kmeans`: the k-means cost sum_i min_j |C_j - P_i|^2 and one Newton step
direction J H^-1 for the centroids C, where H, the Hessian, is diagonal.

The loop form transliterates cpp/gradbench/evals/kmeans.hpp (a helper `euclid_dist_2` over row
views, a running `min`); the vectorized form computes all point-centroid distances at once.
srcad computes J and the Hessian diagonal, the Hessian-vector product with a vector of ones (H is
diagonal, so H 1 is its diagonal), in one pass (`gradient_and_hvp`, as JAX's
`jvp(grad(cost), (c,), (1,))`): forward over reverse on the python backend, reverse over forward
on numba.
The reference is derived by hand: with c(i) the centroid closest to P_i, J_j = 2 sum_{c(i)=j}
(C_j - P_i) and H_jj = 2 |{i : c(i) = j}|, so the direction is C_j minus the mean of its points.
"""

import math

import numpy as np

import srcad

from .common import (
    Eval,
    Implementation,
    Refused,
    autograd_or_unavailable,
    central_differences,
    flatten,
    jax_or_unavailable,
    jax_timed,
    primal_implementation,
)


def euclid_dist_2(a, b):
    dist = 0.0
    for i in range(len(a)):
        dist += (a[i] - b[i]) * (a[i] - b[i])
    return dist


def cost_loops(centroids, points):
    n = points.shape[0]
    k = centroids.shape[0]
    cost = 0.0
    for i in range(n):
        closest = math.inf
        for j in range(k):
            closest = min(closest, euclid_dist_2(points[i], centroids[j]))
        cost += closest
    return cost


def cost_vectorized(centroids, points):
    diff = points[:, None, :] - centroids[None, :, :]
    dists = np.sum(diff * diff, axis=2)
    return np.sum(np.min(dists, axis=1))


class Problem:
    def __init__(self, data):
        self.points = np.array(data["points"], dtype=float)
        self.centroids = np.array(data["centroids"], dtype=float)


def generate(k, n, d, seed=31337):
    rng = np.random.RandomState(seed)
    points = rng.rand(n, d).tolist()
    return {"points": points, "centroids": points[-k:]}  # every cluster is nonempty


def _closest(p):
    diff = p.points[:, None, :] - p.centroids[None, :, :]
    return np.argmin(np.sum(diff * diff, axis=2), axis=1)


def reference_cost(p):
    diff = p.points - p.centroids[_closest(p)]
    return float(np.sum(diff * diff))


def reference_dir(p):
    closest = _closest(p)
    k, d = p.centroids.shape
    sums = np.zeros((k, d))
    np.add.at(sums, closest, p.points)
    counts = np.bincount(closest, minlength=k)[:, None]
    return p.centroids - sums / counts


def fd_check(p, eps=1e-4):
    """The reference direction against J from central differences of the cost and the Hessian
    diagonal from second differences (exact for the cost, piecewise quadratic, away from ties)."""
    cost = lambda: reference_cost(p)  # noqa: E731
    (jacobian,) = central_differences(cost, (p.centroids,), eps)
    hessian = np.zeros_like(p.centroids)
    flat, hflat = p.centroids.reshape(-1), hessian.reshape(-1)
    base = cost()
    for i in range(flat.size):
        saved = flat[i]
        flat[i] = saved + eps
        up = cost()
        flat[i] = saved - eps
        down = cost()
        flat[i] = saved
        hflat[i] = (up - 2.0 * base + down) / (eps * eps)
    want = flatten(jacobian / hessian)
    got = flatten(reference_dir(p))
    return float(np.max(np.abs(got - want)) / np.max(np.abs(want)))


FORMS = {"loops": cost_loops, "vectorized": cost_vectorized}


def _primal(form):
    return primal_implementation("cost", form, FORMS[form], lambda p: (p.centroids, p.points))


def _srcad(backend, form):
    """srcad's J and H 1 on `backend`, from one pass (`gradient_and_hvp`)."""

    def build(p):
        f = FORMS[form]
        ones = np.ones_like(p.centroids)
        constant = srcad.Constant(p.points)
        try:
            prep = srcad.prepare_gradient_and_hvp(f, p.centroids, constant, tangent=ones,
                                                  backend=backend)
        except srcad.SrcadError as exc:
            raise Refused(f"{type(exc).__name__}: {exc}") from exc
        jacobian = np.zeros_like(p.centroids)
        hessian = np.zeros_like(p.centroids)

        def call():
            srcad.gradient_and_hvp(f, p.centroids, constant, tangent=ones, prep=prep,
                                   out=(jacobian, hessian))
            return jacobian / hessian

        return call

    return Implementation("dir", f"srcad-{backend}", form, build)


def _jax(p):
    """JAX's direction as GradBench's JAX tool computes it (its `tools/jax/kmeans.py`, MIT
    License): the squared distances from the norms and one matrix product, the points an
    argument of the jitted function."""
    jax = jax_or_unavailable()
    import jax.numpy as jnp

    def cost(points, centers):
        a_sqr = jnp.sum(points**2, 1)[None, :]
        b_sqr = jnp.sum(centers**2, 1)[:, None]
        dists = a_sqr + b_sqr - 2 * jnp.matmul(points, centers.T).T
        return jnp.min(dists, axis=0).sum()

    @jax.jit
    def direction(points, c):
        j, h = jax.jvp(jax.grad(lambda cs: cost(points, cs)), (c,), (jnp.ones_like(c),))
        return j / h

    points = jax.device_put(p.points)
    return jax_timed(jax, lambda c: direction(points, c), p.centroids)


def _autograd(p):
    autograd = autograd_or_unavailable()
    import autograd.numpy as anp

    def cost(c):
        diff = p.points[:, None, :] - c[None, :, :]
        return anp.sum(anp.min(anp.sum(diff * diff, axis=2), axis=1))

    grad = autograd.grad(cost)
    hvp = autograd.grad(lambda c, v: anp.sum(grad(c) * v))
    ones = np.ones_like(p.centroids)
    return lambda: grad(p.centroids) / hvp(p.centroids, ones)


EVAL = Eval(
    name="kmeans",
    primal="cost",
    derivative="dir",
    sizes={
        "small": {"k": 3, "n": 12, "d": 2},
        "quick": {"k": 10, "n": 1000, "d": 8},
        "default": {"k": 100, "n": 1000, "d": 8},
    },
    generate=generate,
    parse=Problem,
    reference={"cost": reference_cost, "dir": reference_dir},
    to_json={"cost": float, "dir": lambda a: np.asarray(a).tolist()},
    fd_check=fd_check,
    implementations=(
        _primal("loops"),
        _primal("vectorized"),
        _srcad("python", "loops"),
        _srcad("numba", "loops"),
        _srcad("python", "vectorized"),
        _srcad("numba", "vectorized"),
        Implementation("dir", "jax", "vectorized", _jax),
        Implementation("dir", "autograd", "vectorized", _autograd),
    ),
    notes=("srcad-numba: J and H 1 by one reverse-over-forward pass (srcad's numba reverse "
           "mode over its forward code; J is the adjoint of the direction).",),
)
