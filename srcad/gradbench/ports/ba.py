"""GradBench `ba` (bundle adjustment): the residuals and their sparse Jacobian.

The loop form transliterates cpp/gradbench/evals/ba.hpp: per observation, the Rodrigues
rotation of the point relative to the camera center, the perspective division, the radial
distortion and the weighted reprojection error; then the Zach weight errors 1 - w^2. The
input is one vector x = [cams (11 n), X (3 m), w (p)], GradBench's column order, and the
output r = [reproj_err (2 p), w_err (p)] its row order, so J is the (3p, 11n + 3m + p) matrix
the eval asks for. srcad computes it with `jacobian(..., sparse=True)`: the pattern (15
nonzeros per reprojection row, 1 per weight row) is found and colored at preparation.

The reference is a hand-vectorized JAX version of the same function (vmap of jacfwd over the
observations, as GradBench's JAX tool does), checked against central differences in the tests.
"""

from __future__ import annotations

import math

import numpy as np

import srcad

from .common import Eval, Implementation, primal_implementation

N_CAM = 11


def rodrigues_rotate_point(r0, r1, r2, p0, p1, p2):
    sqtheta = r0 * r0 + r1 * r1 + r2 * r2
    if sqtheta != 0.0:
        theta = math.sqrt(sqtheta)
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        theta_inverse = 1.0 / theta
        w0 = r0 * theta_inverse
        w1 = r1 * theta_inverse
        w2 = r2 * theta_inverse
        c0 = w1 * p2 - w2 * p1
        c1 = w2 * p0 - w0 * p2
        c2 = w0 * p1 - w1 * p0
        tmp = (w0 * p0 + w1 * p1 + w2 * p2) * (1.0 - costheta)
        return (p0 * costheta + c0 * sintheta + w0 * tmp,
                p1 * costheta + c1 * sintheta + w1 * tmp,
                p2 * costheta + c2 * sintheta + w2 * tmp)
    return (p0 + (r1 * p2 - r2 * p1), p1 + (r2 * p0 - r0 * p2), p2 + (r0 * p1 - r1 * p0))


def ba_objective(err, x, n, m, p, obs, feats):
    """err = [reprojection errors (2 p), weight errors (p)] of x = [cams, X, w]."""
    point_offset = N_CAM * n
    weight_offset = N_CAM * n + 3 * m
    for i in range(p):
        c = N_CAM * obs[i, 0]
        q = point_offset + 3 * obs[i, 1]
        xo0 = x[q] - x[c + 3]
        xo1 = x[q + 1] - x[c + 4]
        xo2 = x[q + 2] - x[c + 5]
        xc0, xc1, xc2 = rodrigues_rotate_point(x[c], x[c + 1], x[c + 2], xo0, xo1, xo2)
        proj0 = xc0 / xc2
        proj1 = xc1 / xc2
        rsq = proj0 * proj0 + proj1 * proj1
        distortion = 1.0 + x[c + 9] * rsq + x[c + 10] * rsq * rsq
        proj0 = proj0 * distortion * x[c + 6] + x[c + 7]
        proj1 = proj1 * distortion * x[c + 6] + x[c + 8]
        w = x[weight_offset + i]
        err[2 * i] = w * (proj0 - feats[i, 0])
        err[2 * i + 1] = w * (proj1 - feats[i, 1])
    for i in range(p):
        w = x[weight_offset + i]
        err[2 * p + i] = 1.0 - w * w


# -- input --------------------------------------------------------------------------------------
SIZES = {"small": {"n": 3, "m": 5, "p": 12},
         "quick": {"n": 21, "m": 1000, "p": 4000},
         "default": {"n": 49, "m": 7776, "p": 31843}}  # ba1_n49_m7776_p31843, the first file


def generate(n, m, p, seed=0):
    """GradBench's ba input: one camera, point, weight and feature, replicated (ba.hpp's
    from_json); the values are drawn near ADBench's ba1 (a small rotation, a point in front)."""
    rng = np.random.default_rng(seed)
    cam = [0.01 * rng.standard_normal() for _ in range(3)]
    cam += [0.1 * rng.standard_normal(), 0.1 * rng.standard_normal(), -5.0 + rng.random()]
    cam += [400.0 + 10.0 * rng.random(), 1.0 + rng.random(), 1.0 + rng.random(),
            0.01 * rng.standard_normal(), 0.001 * rng.standard_normal()]
    return {"n": n, "m": m, "p": p, "cam": cam,
            "x": [rng.standard_normal(), rng.standard_normal(), 1.0 + rng.random()],
            "w": 0.5 + rng.random(), "feat": [rng.standard_normal(), rng.standard_normal()]}


def parse(data, perturb=0.0, seed=1):
    """(x, constants): x = [cams, X, w] and the Constant arguments (n, m, p, obs, feats).
    `perturb` adds noise to x so the replicated blocks differ (tests compare per entry)."""
    n, m, p = data["n"], data["m"], data["p"]
    cams = np.tile(np.asarray(data["cam"], float), n)
    points = np.tile(np.asarray(data["x"], float), m)
    weights = np.full(p, float(data["w"]))
    x = np.concatenate([cams, points, weights])
    if perturb:
        x = x + perturb * np.random.default_rng(seed).standard_normal(x.size) * np.abs(x)
    obs = np.stack([np.arange(p) % n, np.arange(p) % m], axis=1).astype(np.int64)
    feats = np.tile(np.asarray(data["feat"], float), (p, 1))
    return x, (n, m, p, obs, feats)


def objective(x, constants):
    err = np.zeros(3 * constants[2])
    ba_objective(err, x, *constants)
    return err


# -- srcad --------------------------------------------------------------------------------------
def srcad_jacobian(x, constants, backend="numba"):
    """A zero-argument callable: the sparse Jacobian (a CSR), prepared once here (pattern,
    coloring, compilation), each call refilling one CSR in place."""
    n, m, p, obs, feats = constants
    err = np.zeros(3 * p)
    args = (srcad.Output(err), x, srcad.Constant(n), srcad.Constant(m), srcad.Constant(p),
            srcad.Constant(obs), srcad.Constant(feats))
    prep = srcad.prepare_jacobian(ba_objective, *args, sparse=True, backend=backend)
    J = srcad.jacobian(ba_objective, *args, prep=prep)
    return lambda: srcad.jacobian(ba_objective, *args, prep=prep, out=J)


# -- JAX reference ------------------------------------------------------------------------------
def _jax_residual(jnp):
    def rotate(rot, pt):
        sqtheta = jnp.sum(rot * rot)
        theta = jnp.sqrt(jnp.where(sqtheta != 0.0, sqtheta, 1.0))
        w = rot / theta
        tmp = jnp.dot(w, pt) * (1.0 - jnp.cos(theta))
        rotated = pt * jnp.cos(theta) + jnp.cross(w, pt) * jnp.sin(theta) + w * tmp
        return jnp.where(sqtheta != 0.0, rotated, pt + jnp.cross(rot, pt))

    def residual(cam, point, w, feat):
        xcam = rotate(cam[0:3], point - cam[3:6])
        proj = xcam[0:2] / xcam[2]
        rsq = jnp.sum(proj * proj)
        proj = proj * (1.0 + cam[9] * rsq + cam[10] * rsq * rsq) * cam[6] + cam[7:9]
        return w * (proj - feat)

    return residual


def jax_blocks(x, constants):
    """A zero-argument callable: the nonzero blocks of J from jax.jit(vmap(jacfwd)) of one
    observation's residual (d/d cam, d/d point, d/d w: (p, 2, 15) values, as GradBench's JAX
    tool computes them), without assembling a sparse matrix."""
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    n, m, p, obs, feats = constants
    residual = _jax_residual(jnp)
    block = jax.jit(jax.vmap(jax.jacfwd(residual, argnums=(0, 1, 2))))
    cams = jnp.asarray(x[:N_CAM * n].reshape(n, N_CAM))
    points = jnp.asarray(x[N_CAM * n:N_CAM * n + 3 * m].reshape(m, 3))
    weights = jnp.asarray(x[N_CAM * n + 3 * m:])
    cam_idx, pt_idx = jnp.asarray(obs[:, 0]), jnp.asarray(obs[:, 1])
    feats_j = jnp.asarray(feats)

    def call():
        blocks = block(cams[cam_idx], points[pt_idx], weights, feats_j)
        return tuple(np.asarray(d.block_until_ready()) for d in blocks)

    call()
    return call


def jax_jacobian(x, constants):
    """A zero-argument callable: J as a CSR, the blocks of `jax_blocks` and the weight
    errors' diagonal -2 w assembled in GradBench's row and column order. The reference."""
    import scipy.sparse

    n, m, p, obs, _ = constants
    blocks = jax_blocks(x, constants)
    rows, cols = _pattern(n, m, p, obs)
    weights = x[N_CAM * n + 3 * m:]

    def call():
        d_cam, d_point, d_w = blocks()
        reproj = np.concatenate([d_cam, d_point, d_w[:, :, None]], axis=2)  # (p, 2, 15)
        vals = np.concatenate([reproj.reshape(-1), -2.0 * weights])
        return scipy.sparse.csr_matrix((vals, (rows, cols)), shape=(3 * p, x.size))

    return call


def _pattern(n, m, p, obs):
    """Row and column of each nonzero, in the order jax_jacobian lays out its values."""
    i = np.arange(p)
    cols15 = np.concatenate([N_CAM * obs[:, :1] + np.arange(N_CAM),
                             N_CAM * n + 3 * obs[:, 1:2] + np.arange(3),
                             (N_CAM * n + 3 * m + i)[:, None]], axis=1)  # (p, 15)
    rows = np.concatenate([np.repeat(np.stack([2 * i, 2 * i + 1], 1), 15, axis=1).reshape(-1),
                           2 * p + i])
    cols = np.concatenate([np.repeat(cols15[:, None, :], 2, axis=1).reshape(-1),
                           N_CAM * n + 3 * m + i])
    return rows, cols


def central_differences(x, constants, columns, eps=1e-6):
    """Columns of J by central differences (the tests' reference for the reference)."""
    out = np.zeros((3 * constants[2], len(columns)))
    for k, j in enumerate(columns):
        step = eps * max(1.0, abs(x[j]))
        hi, lo = x.copy(), x.copy()
        hi[j] += step
        lo[j] -= step
        out[:, k] = (objective(hi, constants) - objective(lo, constants)) / (2.0 * step)
    return out


def _fd_error(problem):
    """The JAX reference against central differences, relative to its largest entry."""
    x, constants = problem
    reference = jax_jacobian(x, constants)().toarray()
    fd = central_differences(x, constants, range(x.size))
    return float(np.abs(reference - fd).max() / np.abs(reference).max())


def gradbench_values(x, constants, csr_call):
    """A zero-argument callable: the values of J in GradBench's SparseMat order (per
    observation two rows of 15: 11 camera, 3 point, 1 weight columns; then one per weight),
    read from the CSR `csr_call()` fills, through positions computed once (a structural zero
    srcad leaves out of its pattern, u0 in a y row, reads as 0)."""
    import scipy.sparse

    n, m, p, obs, _ = constants
    rows, cols = _pattern(n, m, p, obs)
    J = csr_call()
    numbered = scipy.sparse.csr_matrix((np.arange(1.0, J.nnz + 1), J.indices, J.indptr),
                                       shape=J.shape)
    positions = np.asarray(numbered[rows, cols]).ravel().astype(np.int64) - 1
    present = positions >= 0
    taken = positions[present]
    values = np.zeros(len(rows))

    def call():
        values[present] = csr_call().data[taken]
        return values

    return call


def _gradbench_json(vals, problem):
    """ba.hpp's to_json of the Jacobian: the first 30 entries of its SparseMat's rows (row
    starts), cols and vals, and the last one of each."""
    x, (n, m, p, obs, _) = problem
    vals = np.asarray(vals).tolist()
    rows = np.concatenate([np.arange(2 * p + 1) * 15, 30 * p + np.arange(1, p + 1)])
    cam, point = int(obs[0, 0]), int(obs[0, 1])
    first = ([N_CAM * cam + i for i in range(N_CAM)]
             + [N_CAM * n + 3 * point + i for i in range(3)] + [N_CAM * n + 3 * m])
    return {"rows": rows[:30].tolist() + [int(rows[-1])],
            "cols": first + first + [N_CAM * n + 3 * m + p - 1],
            "vals": vals[:30] + [vals[-1]]}


def _objective_json(err, problem):
    """ba.hpp's to_json of the objective: the first reprojection error pair and the first
    weight error, each with the count the replicated input repeats it."""
    p = problem[1][2]
    err = np.asarray(err)
    return {"reproj_error": {"elements": err[:2].tolist(), "repeated": p},
            "w_err": {"element": float(err[2 * p]), "repeated": p}}


def _eval():
    """The port in the shared eval interface (srcad/gradbench/ports/common.py). The jacobian's
    result form is its values in GradBench's SparseMat order (`gradbench_values`): a dense J
    would not fit in memory at the default size."""
    def build_srcad(backend):
        return lambda problem: gradbench_values(*problem, srcad_jacobian(*problem,
                                                                         backend=backend))

    def build_jax(problem):
        x, (n, m, p, _, _) = problem
        blocks, weights = jax_blocks(*problem), x[N_CAM * n + 3 * m:]

        def call():
            d_cam, d_point, d_w = blocks()
            reproj = np.concatenate([d_cam, d_point, d_w[:, :, None]], axis=2)
            return np.concatenate([reproj.reshape(-1), -2.0 * weights])

        return call

    return Eval(
        name="ba", primal="objective", derivative="jacobian", sizes=SIZES,
        generate=generate, parse=parse,
        reference={"objective": lambda problem: objective(*problem),
                   "jacobian": lambda problem: build_jax(problem)()},
        to_json={"objective": lambda r: np.asarray(r).tolist(),
                 "jacobian": lambda vals: np.asarray(vals).tolist()},
        to_json_with_problem={"objective": _objective_json, "jacobian": _gradbench_json},
        implementations=(
            primal_implementation("objective", "loops", objective, lambda problem: problem),
            Implementation("jacobian", "srcad-python", "loops", build_srcad("python")),
            Implementation("jacobian", "srcad-numba", "loops", build_srcad("numba")),
            Implementation("jacobian", "jax", "vectorized", build_jax),
        ),
        fd_check=lambda problem: _fd_error(problem),
        rtol=1e-8,
        notes=("srcad: jacobian(..., sparse=True), pattern and coloring at preparation; "
               "results compared as the values in GradBench's SparseMat order",),
    )


try:
    EVAL = _eval()
except ImportError:  # common.py not on this branch yet: the functions above still work
    EVAL = None
