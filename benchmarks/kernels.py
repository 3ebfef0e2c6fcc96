"""The functions the benchmark suite races, outside the harness.

Everything here is plain code with no timing logic: the benchmark problems in the form a
srcad user writes them, the vectorized forms JAX and autograd need, a hand-written numba adjoint
(the "speed of light" reference) and exact reference derivatives for checking.

Optional dependencies (numba, jax, autograd) are imported lazily by the `make_*` factories, so
importing this module needs only NumPy.
"""

from __future__ import annotations

import math

import numpy as np

# --------------------------------------------------------------------------------------------
# The Gaussian-mixture log-likelihood
# --------------------------------------------------------------------------------------------


def mixture_loglikelihood_inline(params, data):
    """The mixture log-likelihood with plain loops and `math.exp` inline (no helper)."""
    K = len(params) // 3
    total = 0.0
    for n in range(len(data)):
        x = data[n]
        acc = 0.0
        for k in range(K):
            w = params[k]
            m = params[K + k]
            s = params[2 * K + k]
            acc += w * math.exp(-(x - m) ** 2 / (2.0 * s * s)) / math.sqrt(2.0 * math.pi * s * s)
        total += math.log(acc)
    return total


def make_numba_mixture():
    """(primal, adjoint) compiled with numba.njit(cache=False).

    `adjoint(params, data, grad)` overwrites `grad` with the gradient and returns the value. It is
    the adjoint a careful human writes: per-component constants hoisted out of the data loop, the
    densities of one data point kept in a K-scratch (the only "tape"), and the reverse sweep of
    the inner loop fused right after its forward sweep.
    """
    import numba

    @numba.njit(cache=False)
    def primal(params, data):
        K = params.shape[0] // 3
        total = 0.0
        for n in range(data.shape[0]):
            x = data[n]
            acc = 0.0
            for k in range(K):
                w = params[k]
                m = params[K + k]
                s = params[2 * K + k]
                acc += w * math.exp(-(x - m) ** 2 / (2.0 * s * s)) / math.sqrt(
                    2.0 * math.pi * s * s)
            total += math.log(acc)
        return total

    @numba.njit(cache=False)
    def adjoint(params, data, grad):
        K = params.shape[0] // 3
        inv_var = np.empty(K)
        inv_s = np.empty(K)
        norm = np.empty(K)
        phi = np.empty(K)
        for k in range(K):
            s = params[2 * K + k]
            inv_var[k] = 1.0 / (s * s)
            inv_s[k] = 1.0 / s
            norm[k] = 1.0 / math.sqrt(2.0 * math.pi * s * s)
        for i in range(3 * K):
            grad[i] = 0.0
        total = 0.0
        for n in range(data.shape[0]):
            x = data[n]
            acc = 0.0
            for k in range(K):
                d = x - params[K + k]
                phi[k] = norm[k] * math.exp(-0.5 * d * d * inv_var[k])
                acc += params[k] * phi[k]
            total += math.log(acc)
            acc_bar = 1.0 / acc
            for k in range(K):
                d = x - params[K + k]
                g = phi[k] * acc_bar
                r = params[k] * g
                grad[k] += g
                grad[K + k] += r * d * inv_var[k]
                grad[2 * K + k] += r * (d * d * inv_var[k] - 1.0) * inv_s[k]
        return total

    return primal, adjoint


def central_differences(primal, params, data, out, h_rel=6e-6):
    """Central finite differences of `primal` with respect to params, written into `out`."""
    p = params.copy()
    for i in range(params.shape[0]):
        h = h_rel * max(1.0, abs(params[i]))
        p[i] = params[i] + h
        up = primal(p, data)
        p[i] = params[i] - h
        down = primal(p, data)
        p[i] = params[i]
        out[i] = (up - down) / (2.0 * h)
    return out


def make_jax_mixture():
    """jax.jit(jax.grad) of the vectorized (broadcasting) log-likelihood, float64."""
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def loglikelihood(params, data):
        K = params.shape[0] // 3
        w, m, s = params[:K], params[K:2 * K], params[2 * K:]
        var = s * s
        diff = data[:, None] - m[None, :]
        phi = jnp.exp(-(diff ** 2) / (2.0 * var)) / jnp.sqrt(2.0 * jnp.pi * var)
        return jnp.sum(jnp.log(phi @ w))

    return jax, jax.jit(jax.grad(loglikelihood))


def make_autograd_mixture():
    """autograd.grad of the vectorized NumPy log-likelihood."""
    import autograd
    import autograd.numpy as anp

    def loglikelihood(params, data):
        K = params.shape[0] // 3
        w, m, s = params[:K], params[K:2 * K], params[2 * K:]
        var = s * s
        diff = data[:, None] - m[None, :]
        phi = anp.exp(-(diff ** 2) / (2.0 * var)) / anp.sqrt(2.0 * anp.pi * var)
        return anp.sum(anp.log(anp.dot(phi, w)))

    return autograd.grad(loglikelihood)


# --------------------------------------------------------------------------------------------
# An in-place function with a scratch cache
# --------------------------------------------------------------------------------------------


def scratch_cache_f(y, x, c):
    """Writes y in place; c is scratch storage whose content on entry does not matter."""
    for i in range(len(x)):
        c[i] = x[i]
    c[0] = 0.0
    c[len(c) - 1] = 0.0
    for i in range(1, len(c) - 1):
        c[i] = math.exp(c[i]) - math.cos(c[i - 1])
    for i in range(len(y)):
        y[i] = 2.0 * c[i] + 1.0


def scratch_cache_jacobian_reference(x):
    """Exact dy/dx of `scratch_cache_f` (J[i, j] = dy_i / dx_j), by the recurrence
    dc_i = exp(x_i) e_i + sin(c_{i-1}) dc_{i-1} for 0 < i < n-1 (c_0 and c_{n-1} are zeroed)."""
    n = len(x)
    c = np.zeros(n)
    dc = np.zeros((n, n))
    for i in range(1, n - 1):
        c[i] = math.exp(x[i]) - math.cos(c[i - 1])
        dc[i] = math.sin(c[i - 1]) * dc[i - 1]
        dc[i, i] += math.exp(x[i])
    return 2.0 * dc


def inplace_central_differences(f, y, x, c, J, h_rel=6e-6):
    """Central finite-difference jacobian of the in-place `f(y, x, c)`, written into J."""
    xp = x.copy()
    up = np.empty_like(y)
    for j in range(x.shape[0]):
        h = h_rel * max(1.0, abs(x[j]))
        xp[j] = x[j] + h
        f(up, xp, c)
        xp[j] = x[j] - h
        f(y, xp, c)
        xp[j] = x[j]
        J[:, j] = (up - y) / (2.0 * h)
    return J


# --------------------------------------------------------------------------------------------
# An elementwise square: the wrapper must cost nothing
# --------------------------------------------------------------------------------------------


def square(x):
    y = np.empty(len(x))
    for i in range(len(x)):
        y[i] = x[i] ** 2
    return y
