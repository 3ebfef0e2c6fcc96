"""GradBench `ht` (hand tracking, the "simple" inputs without `us`): residuals of a skinned
hand model and their dense Jacobian with respect to the 26 pose parameters.

The loop form transliterates cpp/gradbench/evals/ht.hpp with its LightMatrix products written
as loops: pose parameters from theta, per-bone Euler rotations posed onto the base relatives,
relatives chained to absolutes, linear blend skinning of the base positions, mirroring, the
global angle-axis rotation, scaling and translation, then err = points - vertices. Matrices
are row-major here (the C++ reads column-major JSON and transposes; this port's generator
writes row-major arrays directly).

J is (3 * correspondences, 26): srcad computes it with `jacobian` in forward vector mode (26
lanes). The reference is a JAX transcription of the same function (jit(jacfwd)), checked
against central differences in the tests.
"""

from __future__ import annotations

import math

import numpy as np

import srcad

from .common import Eval, Implementation, primal_implementation
from .ht_jax import jax_jacobian

N_THETA = 26
PARENTS = (-1, 0, 1, 2, 3, 1, 5, 6, 7, 1, 9, 10, 11, 1, 13, 14, 15, 1, 17, 18, 19, 0)  # 22 bones


def posed_vertices(vertices, theta, parents, base_relatives, inverse_base_absolutes,
                   base_positions, weights, mirrored):
    """vertices (3, nv) = the skinned, globally transformed hand of pose theta[:26]."""
    nb = len(parents)
    nv = base_positions.shape[1]
    # to_pose_params: columns 0 rotation, 1 scale (ones), 2 translation, 3.. bones
    pose = np.zeros((3, nb + 3))
    for i in range(3):
        pose[i, 0] = theta[i]
        pose[i, 1] = 1.0
        pose[i, 2] = theta[3 + i]
    i_theta = 6
    i_pose = 5
    for _finger in range(5):
        for k in range(2, 5):
            pose[0, i_pose] = theta[i_theta]
            i_theta += 1
            if k == 2:
                pose[1, i_pose] = theta[i_theta]
                i_theta += 1
            i_pose += 1
        i_pose += 1
    # get_posed_relatives: base_relative @ [[R, 0], [0, 1]], R = Rz Ry Rx of (x, z, y) angles
    relatives = np.zeros((nb, 4, 4))
    for b in range(nb):
        tx = pose[0, b + 3]
        ty = pose[2, b + 3]
        tz = pose[1, b + 3]
        cx, sx = math.cos(tx), math.sin(tx)
        cy, sy = math.cos(ty), math.sin(ty)
        cz, sz = math.cos(tz), math.sin(tz)
        tr = np.zeros((4, 4))
        tr[0, 0] = cz * cy
        tr[0, 1] = -sz * cx + cz * sy * sx
        tr[0, 2] = sz * sx + cz * sy * cx
        tr[1, 0] = sz * cy
        tr[1, 1] = cz * cx + sz * sy * sx
        tr[1, 2] = -cz * sx + sz * sy * cx
        tr[2, 0] = -sy
        tr[2, 1] = cy * sx
        tr[2, 2] = cy * cx
        tr[3, 3] = 1.0
        for r in range(4):
            for c in range(4):
                s = 0.0
                for k in range(4):
                    s += base_relatives[b, r, k] * tr[k, c]
                relatives[b, r, c] = s
    # relatives_to_absolutes, then transforms = absolutes @ inverse_base_absolutes
    absolutes = np.zeros((nb, 4, 4))
    transforms = np.zeros((nb, 4, 4))
    for b in range(nb):
        parent = parents[b]
        for r in range(4):
            for c in range(4):
                if parent == -1:
                    absolutes[b, r, c] = relatives[b, r, c]
                else:
                    s = 0.0
                    for k in range(4):
                        s += absolutes[parent, r, k] * relatives[b, k, c]
                    absolutes[b, r, c] = s
        for r in range(4):
            for c in range(4):
                s = 0.0
                for k in range(4):
                    s += absolutes[b, r, k] * inverse_base_absolutes[b, k, c]
                transforms[b, r, c] = s
    # skinning: positions = sum over bones of weight * (transform @ base position)[:3]
    positions = np.zeros((3, nv))
    for b in range(nb):
        for v in range(nv):
            for r in range(3):
                s = 0.0
                for k in range(4):
                    s += transforms[b, r, k] * base_positions[k, v]
                positions[r, v] += s * weights[b, v]
    if mirrored:
        for v in range(nv):
            positions[0, v] = -positions[0, v]
    # apply_global_transform: R(angle axis) with column i scaled by pose[i, 1], then translate
    a0, a1, a2 = pose[0, 0], pose[1, 0], pose[2, 0]
    norm = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    rot = np.zeros((3, 3))
    if norm < 0.0001:
        for i in range(3):
            rot[i, i] = 1.0
    else:
        x, y, z = a0 / norm, a1 / norm, a2 / norm
        s, c = math.sin(norm), math.cos(norm)
        rot[0, 0] = x * x + (1.0 - x * x) * c
        rot[0, 1] = x * y * (1.0 - c) - z * s
        rot[0, 2] = x * z * (1.0 - c) + y * s
        rot[1, 0] = x * y * (1.0 - c) + z * s
        rot[1, 1] = y * y + (1.0 - y * y) * c
        rot[1, 2] = y * z * (1.0 - c) - x * s
        rot[2, 0] = x * z * (1.0 - c) - y * s
        rot[2, 1] = z * y * (1.0 - c) + x * s
        rot[2, 2] = z * z + (1.0 - z * z) * c
    for v in range(nv):
        for j in range(3):
            s = pose[j, 2]
            for k in range(3):
                s += rot[j, k] * pose[k, 1] * positions[k, v]
            vertices[j, v] = s


def ht_objective(err, theta, parents, base_relatives, inverse_base_absolutes, base_positions,
                 weights, correspondences, points, mirrored):
    """err[3 i + j] = points[j, i] - vertex_positions[j, correspondences[i]]."""
    vertices = np.zeros((3, base_positions.shape[1]))
    posed_vertices(vertices, theta, parents, base_relatives, inverse_base_absolutes,
                   base_positions, weights, mirrored)
    for i in range(len(correspondences)):
        v = correspondences[i]
        for j in range(3):
            err[3 * i + j] = points[j, i] - vertices[j, v]


def ht_objective_complicated(err, inputs, parents, base_relatives, inverse_base_absolutes,
                             base_positions, weights, triangles, correspondences, points,
                             mirrored):
    """inputs = [theta (26), us (2 c)]: err[3 i + j] = points[j, i] minus the point of
    triangle correspondences[i] at barycentric (u0, u1, 1 - u0 - u1), u = us[2 i: 2 i + 2]."""
    vertices = np.zeros((3, base_positions.shape[1]))
    posed_vertices(vertices, inputs, parents, base_relatives, inverse_base_absolutes,
                   base_positions, weights, mirrored)
    for i in range(len(correspondences)):
        t = correspondences[i]
        u0 = inputs[N_THETA + 2 * i]
        u1 = inputs[N_THETA + 2 * i + 1]
        for j in range(3):
            point = (u0 * vertices[j, triangles[t, 0]] + u1 * vertices[j, triangles[t, 1]]
                     + (1.0 - u0 - u1) * vertices[j, triangles[t, 2]])
            err[3 * i + j] = points[j, i] - point


# -- input --------------------------------------------------------------------------------------
SIZES = {"small": {"vertices": 12, "correspondences": 8},
         "quick": {"vertices": 544, "correspondences": 100},
         "default": {"vertices": 544, "correspondences": 1600},  # ADBench's hand model: 544
         # the "complicated" inputs (us given: each correspondence a point on a triangle)
         "small-complicated": {"vertices": 12, "correspondences": 8, "complicated": True},
         "quick-complicated": {"vertices": 544, "correspondences": 100, "complicated": True},
         "complicated": {"vertices": 544, "correspondences": 1600, "complicated": True}}
TRIANGLES = 1084  # ADBench's hand model (544 vertices)


def _rigid(rng, scale):
    q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    t = np.eye(4)
    t[:3, :3] = q
    t[:3, 3] = scale * rng.standard_normal(3)
    return t


def generate(vertices, correspondences, seed=0, complicated=False):
    """A synthetic hand in GradBench's layout (22 bones, ADBench's parent tree): rigid base
    relatives, the inverse absolutes they imply, homogeneous base positions, skinning weights
    summing to one per vertex, random correspondences, points near the posed model. With
    `complicated`, the model has triangles, correspondences index them and `us` holds one
    barycentric pair (u0, u1) per correspondence, as in GradBench's "complicated" files."""
    rng = np.random.default_rng(seed)
    nb = len(PARENTS)
    relatives = [_rigid(rng, 0.5) for _ in range(nb)]
    absolutes = []
    for b, parent in enumerate(PARENTS):
        absolutes.append(relatives[b] if parent == -1 else absolutes[parent] @ relatives[b])
    positions = np.vstack([rng.standard_normal((3, vertices)), np.ones((1, vertices))])
    weights = rng.random((nb, vertices)) ** 4
    weights /= weights.sum(axis=0)
    # triangles of three distinct vertices, and the us, from their own stream (the simple
    # inputs stay those of earlier runs)
    mesh = np.random.default_rng(seed + 1)
    triangles = np.argsort(mesh.random((min(TRIANGLES, 2 * vertices), vertices)), axis=1)[:, :3]
    targets = len(triangles) if complicated else vertices
    us = mesh.random((correspondences, 2)) * 0.5 if complicated else np.zeros((0, 2))
    # GradBench's layout (its ht_data.HandModel): one row per vertex in base_positions
    # (homogeneous, 4 entries) and weights (one entry per bone), one row per point
    return {"theta": (0.1 * rng.standard_normal(N_THETA)).tolist(), "us": us.tolist(),
            "data": {"model": {"bone_count": nb,
                               "bone_names": [f"bone{b}" for b in range(nb)],
                               "parents": list(PARENTS),
                               "base_relatives": [r.tolist() for r in relatives],
                               "inverse_base_absolutes": [np.linalg.inv(a).tolist()
                                                          for a in absolutes],
                               "base_positions": positions.T.tolist(),
                               "weights": weights.T.tolist(), "is_mirrored": False,
                               "triangles": triangles.tolist()},
                     "correspondences": rng.integers(0, targets, correspondences).tolist(),
                     "points": rng.standard_normal((3, correspondences)).T.tolist()}}


def _columns(rows):
    """A list of rows as a C-contiguous array with one column per row."""
    return np.ascontiguousarray(np.asarray(rows, float).T)


def parse(data):
    """(theta, constants): the Constant arguments of ht_objective after err and theta; for
    the complicated inputs (`us` not empty), (theta, constants, (us, triangles)).

    GradBench sends base_positions (vertices, 4), weights (vertices, bones) and points
    (correspondences, 3) one row per vertex or point; ht_objective reads them one column per
    vertex or point (as ht.hpp's column-major LightMatrix holds them), so they are transposed
    here."""
    model = data["data"]["model"]
    constants = (np.asarray(model["parents"], np.int64),
                 np.asarray(model["base_relatives"], float),
                 np.asarray(model["inverse_base_absolutes"], float),
                 _columns(model["base_positions"]),
                 _columns(model["weights"]),
                 np.asarray(data["data"]["correspondences"], np.int64),
                 _columns(data["data"]["points"]),
                 bool(model["is_mirrored"]))
    theta = np.asarray(data["theta"], float)
    if len(data.get("us", [])) == 0:
        return theta, constants
    us = np.asarray(data["us"], float).reshape(-1)
    return theta, constants, (us, np.asarray(model["triangles"], np.int64))


def complicated_arguments(theta, constants, complicated):
    """(inputs, constants) of ht_objective_complicated: inputs = [theta, us]."""
    us, triangles = complicated
    return np.concatenate((theta, us)), constants[:5] + (triangles,) + constants[5:]


def objective(theta, constants, complicated=None):
    err = np.zeros(3 * len(constants[5]))
    if complicated is None:
        ht_objective(err, theta, *constants)
    else:
        inputs, arguments = complicated_arguments(theta, constants, complicated)
        ht_objective_complicated(err, inputs, *arguments)
    return err


# -- srcad --------------------------------------------------------------------------------------
def srcad_jacobian(theta, constants, complicated=None, backend="numba"):
    """A zero-argument callable: the dense (3 c, 26) Jacobian, prepared once, filled in place
    (the complicated inputs: `srcad_complicated_jacobian`)."""
    if complicated is not None:
        return srcad_complicated_jacobian(theta, constants, complicated, backend)
    err = np.zeros(3 * len(constants[5]))
    args = (srcad.Output(err), theta) + tuple(srcad.Constant(c) for c in constants)
    prep = srcad.prepare_jacobian(ht_objective, *args, backend=backend)
    J = srcad.jacobian(ht_objective, *args, prep=prep)
    return lambda: srcad.jacobian(ht_objective, *args, prep=prep, out=J)


def srcad_complicated_jacobian(theta, constants, complicated, backend="numba"):
    """A zero-argument callable: GradBench's (3 c, 2 + 26) Jacobian of the complicated
    inputs. Row 3 i + j depends on us[2 i] and us[2 i + 1] only, so columns 0 and 1 hold
    d err / d us[2 i] and d err / d us[2 i + 1] of each row's own correspondence, columns
    2.. d err / d theta. srcad computes the sparse (3 c, 26 + 2 c) Jacobian with respect to
    inputs = [theta, us] (`sparse=True`: the u columns of different correspondences share
    no row and take two colors, so one forward pass has 28 lanes) and gathers it into that
    layout."""
    inputs, arguments = complicated_arguments(theta, constants, complicated)
    rows = 3 * len(constants[5])
    args = ((srcad.Output(np.zeros(rows)), inputs)
            + tuple(srcad.Constant(c) for c in arguments))
    prep = srcad.prepare_jacobian(ht_objective_complicated, *args, sparse=True,
                                  backend=backend)
    J = srcad.jacobian(ht_objective_complicated, *args, prep=prep)
    # where each GradBench entry sits in J.data (-1: a structural zero)
    row = np.arange(rows)
    wanted = np.empty((rows, 2 + N_THETA), np.int64)
    wanted[:, 0] = N_THETA + 2 * (row // 3)
    wanted[:, 1] = wanted[:, 0] + 1
    wanted[:, 2:] = np.arange(N_THETA)
    position = np.full(wanted.shape, -1, np.int64)
    for r in range(rows):
        start, stop = J.indptr[r], J.indptr[r + 1]
        found = {int(c): start + k for k, c in enumerate(J.indices[start:stop])}
        position[r] = [found.get(int(c), -1) for c in wanted[r]]
    present = position >= 0
    out = np.zeros(wanted.shape)

    def call():
        srcad.jacobian(ht_objective_complicated, *args, prep=prep, out=J)
        out[present] = J.data[position[present]]
        return out

    return call


def central_differences(theta, constants, complicated=None, eps=1e-6):
    """Central differences in GradBench's layout (the u columns of the complicated inputs
    as the sum over correspondences, each row reading its own pair)."""
    directions = [np.eye(theta.size)[j] for j in range(theta.size)]
    if complicated is not None:
        us = complicated[0]
        directions = [np.concatenate([np.zeros(theta.size), np.arange(us.size) % 2 == k])
                      for k in range(2)] + [np.concatenate([d, np.zeros(us.size)])
                                            for d in directions]
        base = np.concatenate([theta, us])
    else:
        base = theta
    columns = []
    for d in directions:
        hi, lo = base + eps * d, base - eps * d
        columns.append((_objective_at(hi, theta.size, constants, complicated)
                        - _objective_at(lo, theta.size, constants, complicated)) / (2 * eps))
    return np.stack(columns, axis=1)


def _objective_at(point, n_theta, constants, complicated):
    if complicated is None:
        return objective(point, constants)
    return objective(point[:n_theta], constants, (point[n_theta:], complicated[1]))


def _fd_error(problem):
    """The JAX reference against central differences, relative to its largest entry."""
    reference = jax_jacobian(*problem)()
    fd = central_differences(*problem)
    return float(np.abs(reference - fd).max() / np.abs(reference).max())


def _eval():
    """The port in the shared eval interface (srcad/gradbench/ports/common.py)."""
    def build_srcad(backend):
        return lambda problem: srcad_jacobian(*problem, backend=backend)

    return Eval(
        name="ht", primal="objective", derivative="jacobian", sizes=SIZES,
        generate=generate, parse=parse,
        reference={"objective": lambda problem: objective(*problem),
                   "jacobian": lambda problem: jax_jacobian(*problem)()},
        to_json={"objective": lambda r: np.asarray(r).tolist(),
                 "jacobian": lambda J: np.asarray(J).tolist()},
        implementations=(
            primal_implementation("objective", "loops", objective, lambda problem: problem),
            Implementation("jacobian", "srcad-python", "loops", build_srcad("python")),
            Implementation("jacobian", "srcad-numba", "loops", build_srcad("numba")),
            Implementation("jacobian", "jax", "vectorized",
                           lambda problem: jax_jacobian(*problem)),
        ),
        fd_check=lambda problem: _fd_error(problem),
        rtol=1e-8,
        notes=("the simple inputs (no us) and, at the *-complicated sizes, the complicated "
               "ones (sparse=True over [theta, us]); synthetic hand model in GradBench's "
               "layout",),
    )


try:
    EVAL = _eval()
except ImportError:  # common.py not on this branch yet: the functions above still work
    EVAL = None
