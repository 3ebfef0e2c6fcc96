"""The array programs the benchmark suite races, outside the harness.

Three whole-array programs as a srcad user writes them (plain NumPy, one function each): a
logistic-regression loss, a 2-layer tanh MLP with a softmax cross-entropy, and an RNN over T
steps. For each: the hand-written NumPy gradient (the reference every contender is checked
against, derived by hand, not by srcad), and the forms autograd and JAX need. The gradients are
returned as one flat vector over the differentiated arguments, in argument order, so every
contender is compared the same way.

Optional dependencies (jax, autograd) are imported lazily by the `make_*` factories, so
importing this module needs only NumPy.
"""

from __future__ import annotations

import numpy as np


def flat(*arrays):
    return np.concatenate([np.ravel(a) for a in arrays])


# --------------------------------------------------------------------------------------------
# Logistic regression: mean(log(1 + exp(-y * Xw))), labels y in {-1, +1}
# --------------------------------------------------------------------------------------------


def logistic_loss(w, X, y):
    z = X @ w
    return np.mean(np.log(1.0 + np.exp(-y * z)))


def logistic_problem(N, D, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, D)) / np.sqrt(D)
    y = np.sign(rng.standard_normal(N))
    w = rng.standard_normal(D)
    return w, X, y


def logistic_gradient_numpy(w, X, y):
    """d/dw mean(log(1 + e^{-y z})) = X^T (-y sigmoid(-y z)) / N, z = X w."""
    margin = y * (X @ w)
    return X.T @ (-y / (1.0 + np.exp(margin))) / X.shape[0]


# --------------------------------------------------------------------------------------------
# 2-layer tanh MLP, softmax cross-entropy against one-hot labels
# --------------------------------------------------------------------------------------------


def mlp_loss(W1, b1, W2, b2, X, labels):
    hidden = np.tanh(X @ W1 + b1)
    scores = hidden @ W2 + b2
    shifted = scores - np.max(scores, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(log_probs * labels, axis=1))


def mlp_problem(N, D, H, K, seed=1):
    rng = np.random.default_rng(seed)
    W1 = rng.standard_normal((D, H)) / np.sqrt(D)
    b1 = 0.1 * rng.standard_normal(H)
    W2 = rng.standard_normal((H, K)) / np.sqrt(H)
    b2 = 0.1 * rng.standard_normal(K)
    X = rng.standard_normal((N, D))
    labels = np.eye(K)[rng.integers(0, K, N)]
    return W1, b1, W2, b2, X, labels


def mlp_gradient_numpy(W1, b1, W2, b2, X, labels):
    """Backpropagation by hand: d loss / d scores = (softmax - labels) / N."""
    N = X.shape[0]
    hidden = np.tanh(X @ W1 + b1)
    scores = hidden @ W2 + b2
    e = np.exp(scores - np.max(scores, axis=1, keepdims=True))
    d_scores = (e / np.sum(e, axis=1, keepdims=True) - labels) / N
    d_hidden = (d_scores @ W2.T) * (1.0 - hidden * hidden)
    return flat(X.T @ d_hidden, d_hidden.sum(axis=0), hidden.T @ d_scores, d_scores.sum(axis=0))


# --------------------------------------------------------------------------------------------
# RNN: h_{t+1} = tanh(W h_t + U x_t), loss sum((h_T - target)^2); gradient in W and U
# --------------------------------------------------------------------------------------------


def rnn_loss(W, U, xs, h0, target):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum((h - target) ** 2)


def rnn_problem(T, H, D, seed=2):
    rng = np.random.default_rng(seed)
    W = 0.9 * rng.standard_normal((H, H)) / np.sqrt(H)
    U = rng.standard_normal((H, D)) / np.sqrt(D)
    xs = rng.standard_normal((T, D))
    h0 = 0.1 * rng.standard_normal(H)
    target = 0.5 * rng.standard_normal(H)
    return W, U, xs, h0, target


def rnn_gradient_numpy(W, U, xs, h0, target):
    """Backpropagation through time by hand: the T+1 hidden states kept, then one backward
    sweep (d tanh(a) = 1 - tanh(a)^2)."""
    T = xs.shape[0]
    hs = [h0]
    for t in range(T):
        hs.append(np.tanh(W @ hs[t] + U @ xs[t]))
    dW, dU = np.zeros_like(W), np.zeros_like(U)
    dh = 2.0 * (hs[T] - target)
    for t in range(T - 1, -1, -1):
        da = dh * (1.0 - hs[t + 1] * hs[t + 1])
        dW += np.outer(da, hs[t])
        dU += np.outer(da, xs[t])
        dh = W.T @ da
    return flat(dW, dU)


# --------------------------------------------------------------------------------------------
# The contenders' forms
# --------------------------------------------------------------------------------------------


def make_autograd():
    """{problem: gradient function returning the flat gradient}, autograd.grad over the same
    programs written with autograd.numpy."""
    import autograd
    import autograd.numpy as anp

    def logistic(w, X, y):
        return anp.mean(anp.log(1.0 + anp.exp(-y * anp.dot(X, w))))

    def mlp(W1, b1, W2, b2, X, labels):
        hidden = anp.tanh(anp.dot(X, W1) + b1)
        scores = anp.dot(hidden, W2) + b2
        shifted = scores - anp.max(scores, axis=1, keepdims=True)
        log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        return -anp.mean(anp.sum(log_probs * labels, axis=1))

    def rnn(W, U, xs, h0, target):
        h = h0
        for t in range(xs.shape[0]):
            h = anp.tanh(anp.dot(W, h) + anp.dot(U, xs[t]))
        return anp.sum((h - target) ** 2)

    mlp_grad = autograd.grad(mlp, argnum=(0, 1, 2, 3))
    rnn_grad = autograd.grad(rnn, argnum=(0, 1))
    return {"logistic": autograd.grad(logistic),
            "mlp": lambda *args: flat(*mlp_grad(*args)),
            "rnn": lambda *args: flat(*rnn_grad(*args))}


def make_jax():
    """(jax, {problem: jax.jit(jax.grad) of the jnp form}), float64; the RNN as a lax.scan.
    Each returns a tuple of device arrays (flatten with `flat` after the timed call)."""
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def logistic(w, X, y):
        return jnp.mean(jnp.log(1.0 + jnp.exp(-y * (X @ w))))

    def mlp(W1, b1, W2, b2, X, labels):
        hidden = jnp.tanh(X @ W1 + b1)
        scores = hidden @ W2 + b2
        shifted = scores - jnp.max(scores, axis=1, keepdims=True)
        log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
        return -jnp.mean(jnp.sum(log_probs * labels, axis=1))

    def rnn(W, U, xs, h0, target):
        def step(h, x):
            return jnp.tanh(W @ h + U @ x), None

        h, _ = jax.lax.scan(step, h0, xs)
        return jnp.sum((h - target) ** 2)

    return jax, {"logistic": jax.jit(jax.grad(logistic)),
                 "mlp": jax.jit(jax.grad(mlp, argnums=(0, 1, 2, 3))),
                 "rnn": jax.jit(jax.grad(rnn, argnums=(0, 1)))}
