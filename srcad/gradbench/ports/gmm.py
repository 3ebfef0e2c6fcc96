"""GradBench `gmm`: the log posterior of a Gaussian mixture with a Wishart prior, and its
gradient with respect to alpha, mu, q and l.

The loop form transliterates cpp/gradbench/evals/gmm.hpp: the same helpers (`logsumexp`,
`Qtimesx`, `sqnorm`, `log_wishart_prior`), row views (`mu[ik]`, `l[ik]`) and work arrays
(`xcentered`, `Qxcentered`, `main_term`). The vectorized form is the NumPy one of the PyTorch
tool, with the lower-triangular product spelled as a matrix product with a constant 0/1 matrix.
The reference is JAX's gradient of the vectorized form, written as GradBench's JAX tool writes
it.
"""

import math

import numpy as np

from .common import (
    Eval,
    Implementation,
    autograd_or_unavailable,
    form_implementations,
    gradient_error,
    jax_or_unavailable,
    jax_references,
)


def log_gamma_distrib(a, p):
    out = 0.25 * p * (p - 1) * math.log(math.pi)
    for j in range(1, p + 1):
        out = out + math.lgamma(a + 0.5 * (1 - j))
    return out


def arr_max(x):
    m = x[0]
    for i in range(1, len(x)):
        m = max(m, x[i])
    return m


def logsumexp(x):
    mx = arr_max(x)
    semx = 0.0
    for i in range(len(x)):
        semx = semx + math.exp(x[i] - mx)
    return math.log(semx) + mx


def sqnorm(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i]
    return s


def qtimesx(qdiag, ltri, x, out):
    """out = Q x for Q lower triangular: diagonal qdiag, strictly lower part ltri by columns."""
    d = len(x)
    for i in range(d):
        out[i] = qdiag[i] * x[i]
    lparamsidx = 0
    for i in range(d):
        for j in range(i + 1, d):
            out[j] = out[j] + ltri[lparamsidx] * x[i]
            lparamsidx += 1


def gmm_loops(alpha, mu, q, l, x, gamma, m, log_gamma_d):
    """The C++ objective as written: helpers take row views (`qdiags[ik]`, `l[ik]`)."""
    n, d = x.shape
    k = len(alpha)
    constant = -n * d * 0.5 * math.log(2.0 * math.pi)
    qdiags = np.zeros((k, d))
    sum_qs = np.zeros(k)
    for ik in range(k):
        for j in range(d):
            qdiags[ik, j] = math.exp(q[ik, j])
            sum_qs[ik] = sum_qs[ik] + q[ik, j]
    xcentered = np.zeros(d)
    qxcentered = np.zeros(d)
    main_term = np.zeros(k)
    slse = 0.0
    for ix in range(n):
        for ik in range(k):
            for j in range(d):
                xcentered[j] = x[ix, j] - mu[ik, j]
            qtimesx(qdiags[ik], l[ik], xcentered, qxcentered)
            main_term[ik] = alpha[ik] + sum_qs[ik] - 0.5 * sqnorm(qxcentered)
        slse = slse + logsumexp(main_term)
    err = constant + slse - n * logsumexp(alpha)
    return err + log_wishart_prior_views(qdiags, sum_qs, l, gamma, m, log_gamma_d)


def log_wishart_prior_views(qdiags, sum_qs, l, gamma, m, log_gamma_d):
    k, d = qdiags.shape
    n = d + m + 1
    c = n * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_d
    out = 0.0
    for ik in range(k):
        frobenius = sqnorm(qdiags[ik]) + sqnorm(l[ik])
        out = out + 0.5 * gamma * gamma * frobenius - m * sum_qs[ik]
    return -out + k * c


# The rows rewrite: a written work array (`qdiags`) is passed whole with the row
# index, instead of as a row view.


def qtimesx_row(qdiags, ik, ltri, x, out):
    d = len(x)
    for i in range(d):
        out[i] = qdiags[ik, i] * x[i]
    lparamsidx = 0
    for i in range(d):
        for j in range(i + 1, d):
            out[j] = out[j] + ltri[lparamsidx] * x[i]
            lparamsidx += 1


def sqnorm_row(a, ik):
    s = 0.0
    for i in range(a.shape[1]):
        s = s + a[ik, i] * a[ik, i]
    return s


def log_wishart_prior(qdiags, sum_qs, l, gamma, m, log_gamma_d):
    k, d = qdiags.shape
    n = d + m + 1
    c = n * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_d
    out = 0.0
    for ik in range(k):
        frobenius = sqnorm_row(qdiags, ik) + sqnorm(l[ik])
        out = out + 0.5 * gamma * gamma * frobenius - m * sum_qs[ik]
    return -out + k * c


def gmm_loops_rows(alpha, mu, q, l, x, gamma, m, log_gamma_d):
    n, d = x.shape
    k = len(alpha)
    constant = -n * d * 0.5 * math.log(2.0 * math.pi)
    qdiags = np.zeros((k, d))
    sum_qs = np.zeros(k)
    for ik in range(k):
        for j in range(d):
            qdiags[ik, j] = math.exp(q[ik, j])
            sum_qs[ik] = sum_qs[ik] + q[ik, j]
    xcentered = np.zeros(d)
    qxcentered = np.zeros(d)
    main_term = np.zeros(k)
    slse = 0.0
    for ix in range(n):
        for ik in range(k):
            for j in range(d):
                xcentered[j] = x[ix, j] - mu[ik, j]
            qtimesx_row(qdiags, ik, l[ik], xcentered, qxcentered)
            main_term[ik] = alpha[ik] + sum_qs[ik] - 0.5 * sqnorm(qxcentered)
        slse = slse + logsumexp(main_term)
    err = constant + slse - n * logsumexp(alpha)
    return err + log_wishart_prior(qdiags, sum_qs, l, gamma, m, log_gamma_d)


def lower_scatter(d):
    """The constant (d(d-1)/2, d*d) 0/1 matrix P with (l @ P).reshape(d, d) the strictly lower
    part of Q filled column by column."""
    p = np.zeros((d * (d - 1) // 2, d * d))
    idx = 0
    for col in range(d):
        for row in range(col + 1, d):
            p[idx, row * d + col] = 1.0
            idx += 1
    return p


def gmm_vectorized(alpha, mu, q, l, x, gamma, m, log_gamma_d, scatter):
    n, d = x.shape
    k = alpha.shape[0]
    qdiags = np.exp(q)
    sum_qs = np.sum(q, axis=1)
    lower = (l @ scatter).reshape(k, d, d)
    xcentered = x[:, None, :] - mu[None, :, :]  # (n, k, d)
    lx = np.sum(lower[None, :, :, :] * xcentered[:, :, None, :], axis=3)
    qx = qdiags[None, :, :] * xcentered + lx
    main_term = alpha[None, :] + sum_qs[None, :] - 0.5 * np.sum(qx * qx, axis=2)
    mx = np.max(main_term, axis=1)
    slse = np.sum(np.log(np.sum(np.exp(main_term - mx[:, None]), axis=1)) + mx)
    amax = np.max(alpha)
    lse_alpha = np.log(np.sum(np.exp(alpha - amax))) + amax
    constant = -n * d * 0.5 * math.log(2.0 * math.pi)
    frobenius = np.sum(qdiags * qdiags) + np.sum(l * l)
    wishart_n = d + m + 1
    c = wishart_n * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_d
    prior = -(0.5 * gamma * gamma * frobenius - m * np.sum(sum_qs)) + k * c
    return constant + slse - n * lse_alpha + prior


# ----------------------------------------------------------------------------------------------


class Problem:
    def __init__(self, data):
        self.alpha = np.array(data["alpha"], dtype=float)
        self.mu = np.array(data["mu"], dtype=float)
        self.q = np.array(data["q"], dtype=float)
        d = self.mu.shape[1]
        self.l = np.array(data["l"], dtype=float).reshape(len(self.alpha), d * (d - 1) // 2)
        self.x = np.array(data["x"], dtype=float).reshape(int(data["n"]), d)
        self.gamma = float(data["gamma"])
        self.m = int(data["m"])
        self.log_gamma_d = log_gamma_distrib(0.5 * (d + self.m + 1), d)
        self.scatter = lower_scatter(d)

    @property
    def independent(self):
        return (self.alpha, self.mu, self.q, self.l)

    def loop_constants(self):
        return (self.x, self.gamma, self.m, self.log_gamma_d)

    def vectorized_constants(self):
        return self.loop_constants() + (self.scatter,)


def generate(d, k, n, m=0, gamma=1.0, seed=31337):
    rng = np.random.default_rng(seed=seed)
    return {
        "d": d,
        "k": k,
        "n": n,
        "x": [list(rng.normal(size=d)) for _ in range(n)],
        "m": m,
        "gamma": gamma,
        "alpha": list(rng.normal(size=k)),
        "mu": [list(rng.uniform(size=d)) for _ in range(k)],
        "q": [list(rng.normal(size=d)) for _ in range(k)],
        "l": [list(rng.normal(size=d * (d - 1) // 2)) for _ in range(k)],
    }


def _make_jax_functions(p):
    """JAX's objective and gradient as GradBench's JAX tool computes them (its
    `tools/jax/gmm_objective.py`, MIT License): the lower triangles scattered into (k, d, d)
    matrices by index and applied by one `einsum`, `x` an argument of the jitted function;
    the constant of the Wishart prior is the port's `log_gamma_d`."""
    jax = jax_or_unavailable()
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp

    gamma, m, lg = p.gamma, p.m, p.log_gamma_d
    n, d = p.x.shape
    k = p.alpha.shape[0]
    # the strictly lower part of each Q filled column by column, as `lower_scatter`
    cols = jnp.repeat(jnp.arange(d - 1), jnp.arange(d - 1, 0, -1),
                      total_repeat_length=d * (d - 1) // 2)
    rows = jnp.concatenate([jnp.arange(c + 1, d) for c in range(d - 1)] or [jnp.arange(0)])

    def objective(alpha, mu, q, l, x):
        qdiags = jnp.exp(q)
        sum_qs = jnp.sum(q, axis=1)
        ls = jnp.zeros((k, d, d), dtype=l.dtype).at[:, rows, cols].set(l)
        xcentered = x[:, None, :] - mu[None, ...]
        lxcentered = qdiags * xcentered + jnp.einsum("ijk,mik->mij", ls, xcentered)
        inner_term = alpha + sum_qs - 0.5 * jnp.sum(lxcentered**2, axis=2)
        slse = jnp.sum(logsumexp(inner_term, axis=1))
        wn = d + m + 1
        out = jnp.sum(0.5 * gamma * gamma * (jnp.sum(qdiags**2, axis=1) + jnp.sum(l**2, axis=1))
                      - m * sum_qs)
        prior = -out + k * (wn * d * (math.log(gamma) - 0.5 * math.log(2.0)) - lg)
        return (-n * d * 0.5 * math.log(2.0 * math.pi) + slse - n * logsumexp(alpha, axis=0)
                + prior)

    x = jax.device_put(p.x)
    value = jax.jit(objective)
    gradient = jax.jit(jax.grad(objective, argnums=(0, 1, 2, 3)))
    return (jax, lambda alpha, mu, q, l: value(alpha, mu, q, l, x),
            lambda alpha, mu, q, l: gradient(alpha, mu, q, l, x))


# JAX's objective and gradient, made (and jitted) once per problem
reference_objective, reference_jacobian, _jax = jax_references(_make_jax_functions)


def _autograd(p):
    autograd = autograd_or_unavailable()
    import autograd.numpy as anp

    x, gamma, m, lg, scatter = p.x, p.gamma, p.m, p.log_gamma_d, p.scatter

    def objective(alpha, mu, q, l):
        n, d = x.shape
        k = alpha.shape[0]
        qdiags = anp.exp(q)
        sum_qs = anp.sum(q, axis=1)
        lower = anp.reshape(anp.dot(l, scatter), (k, d, d))
        xc = x[:, None, :] - mu[None, :, :]
        qx = qdiags[None] * xc + anp.sum(lower[None] * xc[:, :, None, :], axis=3)
        mt = alpha[None, :] + sum_qs[None, :] - 0.5 * anp.sum(qx * qx, axis=2)
        mx = anp.max(mt, axis=1)
        slse = anp.sum(anp.log(anp.sum(anp.exp(mt - mx[:, None]), axis=1)) + mx)
        amax = anp.max(alpha)
        lse_alpha = anp.log(anp.sum(anp.exp(alpha - amax))) + amax
        frob = anp.sum(qdiags * qdiags) + anp.sum(l * l)
        wn = d + m + 1
        c = wn * d * (math.log(gamma) - 0.5 * math.log(2.0)) - lg
        prior = -(0.5 * gamma * gamma * frob - m * anp.sum(sum_qs)) + k * c
        return -n * d * 0.5 * math.log(2.0 * math.pi) + slse - n * lse_alpha + prior

    g = autograd.grad(lambda params: objective(*params))
    return lambda: tuple(g(p.independent))


FORMS = {  # form -> (objective, whether it takes the scatter matrix)
    "loops": (gmm_loops, False),
    "loops-rows": (gmm_loops_rows, False),
    "vectorized": (gmm_vectorized, True),
}


def _constants(p, form):
    return p.vectorized_constants() if FORMS[form][1] else p.loop_constants()


_build = form_implementations("objective", "jacobian", {k: f for k, (f, _) in FORMS.items()},
                              lambda p, form: (p.independent, _constants(p, form)))


def jacobian_json(grads):
    alpha, mu, q, l = grads
    return {"alpha": alpha.tolist(), "mu": mu.tolist(), "q": q.tolist(), "l": l.tolist()}


EVAL = Eval(
    name="gmm",
    primal="objective",
    derivative="jacobian",
    sizes={
        "small": {"d": 3, "k": 4, "n": 10},
        "quick": {"d": 10, "k": 25, "n": 200},
        "default": {"d": 10, "k": 25, "n": 1000},
    },
    generate=generate,
    parse=Problem,
    reference={"objective": reference_objective, "jacobian": reference_jacobian},
    to_json={"objective": float, "jacobian": jacobian_json},
    fd_check=lambda p: gradient_error(lambda: reference_objective(p), p.independent,
                                      reference_jacobian(p)),
    implementations=(
        _build("primal", "loops"),
        _build("primal", "vectorized"),
        _build("python", "loops"),
        _build("numba", "loops"),
        _build("python", "loops-rows"),
        _build("numba", "loops-rows"),
        _build("python", "vectorized"),
        _build("numba", "vectorized"),
        Implementation("jacobian", "jax", "vectorized", _jax),
        Implementation("jacobian", "autograd", "vectorized", _autograd),
    ),
)
