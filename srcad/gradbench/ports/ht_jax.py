"""The JAX reference of GradBench `ht` (srcad/gradbench/ports/ht.py): a vectorized
transcription of the same hand model, its jacobian by jax.jit(jax.jacfwd) (or jacrev) for
the simple inputs, and for the complicated ones the theta columns by jacfwd and the two u
columns by two seeded jvps. Checked against central differences in the tests.
"""

from __future__ import annotations

import numpy as np


def _jax_objective(jnp, constants):
    parents, base_rel, inv_abs, base_pos, weights, corr, points, mirrored = constants

    def euler(t):  # (x, z, y) angles as ht.hpp's euler_angles_to_rotation_matrix reads them
        cx, sx = jnp.cos(t[0]), jnp.sin(t[0])
        cy, sy = jnp.cos(t[2]), jnp.sin(t[2])
        cz, sz = jnp.cos(t[1]), jnp.sin(t[1])
        one, zero = jnp.ones(()), jnp.zeros(())
        rx = jnp.array([[one, zero, zero], [zero, cx, -sx], [zero, sx, cx]])
        ry = jnp.array([[cy, zero, sy], [zero, one, zero], [-sy, zero, cy]])
        rz = jnp.array([[cz, -sz, zero], [sz, cz, zero], [zero, zero, one]])
        return rz @ ry @ rx

    def vertices_of(theta):
        nb = len(parents)
        pose = jnp.zeros((3, nb + 3)).at[:, 0].set(theta[0:3]).at[:, 1].set(1.0)
        pose = pose.at[:, 2].set(theta[3:6])
        i_theta, i_pose = 6, 5
        for _ in range(5):
            for k in range(2, 5):
                pose = pose.at[0, i_pose].set(theta[i_theta])
                i_theta += 1
                if k == 2:
                    pose = pose.at[1, i_pose].set(theta[i_theta])
                    i_theta += 1
                i_pose += 1
            i_pose += 1
        absolutes = []
        positions = jnp.zeros((3, base_pos.shape[1]))
        for b in range(nb):
            tr = jnp.eye(4).at[:3, :3].set(euler(pose[:, b + 3]))
            rel = jnp.asarray(base_rel[b]) @ tr
            absolute = rel if parents[b] == -1 else absolutes[parents[b]] @ rel
            absolutes.append(absolute)
            transform = absolute @ jnp.asarray(inv_abs[b])
            positions = positions + (transform @ base_pos)[:3] * weights[b]
        if mirrored:
            positions = positions.at[0].multiply(-1.0)
        a = pose[:, 0]
        norm = jnp.sqrt(jnp.sum(a * a))
        x, y, z = a / norm
        s, c = jnp.sin(norm), jnp.cos(norm)
        rot = jnp.array([[x * x + (1 - x * x) * c, x * y * (1 - c) - z * s,
                          x * z * (1 - c) + y * s],
                         [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c,
                          y * z * (1 - c) - x * s],
                         [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s,
                          z * z + (1 - z * z) * c]])
        return (rot * pose[:, 1]) @ positions + pose[:, 2:3]

    def f(theta):
        return (jnp.asarray(points) - vertices_of(theta)[:, corr]).T.reshape(-1)

    return f, vertices_of


def _jax_complicated(jnp, constants, triangles):
    points, corr = constants[6], constants[5]
    corners = [jnp.asarray(triangles[corr, k]) for k in range(3)]
    _, vertices_of = _jax_objective(jnp, constants)

    def f(theta, us):
        vertices = vertices_of(theta)
        u = us.reshape(-1, 2)
        hand = (u[:, 0] * vertices[:, corners[0]] + u[:, 1] * vertices[:, corners[1]]
                + (1.0 - u[:, 0] - u[:, 1]) * vertices[:, corners[2]])
        return (jnp.asarray(points) - hand).T.reshape(-1)

    return f


def jax_jacobian(theta, constants, complicated=None, reverse=False):
    """A zero-argument callable: jax.jit(jax.jacfwd) (jacrev if `reverse`) of the JAX
    transcription (the angle-axis norm is assumed >= 1e-4, as at the generated points). The
    complicated inputs: the theta columns by jacfwd and the two u columns by two jvps
    seeded with every us[2 i] and every us[2 i + 1] (each row reads its own pair only), as
    GradBench's C++ tools seed them."""
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    if complicated is not None:
        return _jax_complicated_jacobian(jax, jnp, theta, constants, complicated)
    transform = jax.jacrev if reverse else jax.jacfwd
    jac = jax.jit(transform(_jax_objective(jnp, constants)[0]))
    theta_j = jnp.asarray(theta)
    jac(theta_j).block_until_ready()
    return lambda: np.asarray(jac(theta_j).block_until_ready())


def _jax_complicated_jacobian(jax, jnp, theta, constants, complicated):
    us, triangles = complicated
    f = _jax_complicated(jnp, constants, triangles)
    seeds = [jnp.asarray((np.arange(us.size) % 2 == k).astype(float)) for k in range(2)]

    @jax.jit
    def jac(theta, us):
        u_columns = [jax.jvp(lambda u: f(theta, u), (us,), (seed,))[1] for seed in seeds]
        return jnp.concatenate([jnp.stack(u_columns, axis=1),
                                jax.jacfwd(f)(theta, us)], axis=1)

    theta_j, us_j = jnp.asarray(theta), jnp.asarray(us)
    jac(theta_j, us_j).block_until_ready()
    return lambda: np.asarray(jac(theta_j, us_j).block_until_ready())
