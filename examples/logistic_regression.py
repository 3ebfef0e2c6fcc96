"""Logistic regression written with NumPy arrays (np.dot, np.sum), fitted by gradient descent
with the gradient from `srcad.grad`.

The loss is the mean negative log-likelihood plus an L2 penalty:

    L(w, b) = sum_i log(1 + exp(-t_i (x_i . w + b))) / N + alpha |w|^2 / 2

with labels t_i in {-1, +1}. Its gradient has a closed form, which the example compares with.

Run with ``python examples/logistic_regression.py``.
"""

import numpy as np

import srcad


def loss(w, b, X, t, alpha):
    z = np.dot(X, w) + b
    return np.sum(np.log(1.0 + np.exp(-t * z))) / len(t) + 0.5 * alpha * np.dot(w, w)


def closed_form_gradient(w, b, X, t, alpha):
    """The same gradient by hand: with s = 1 / (1 + exp(t z)), dL/dz = -t s / N."""
    z = np.dot(X, w) + b
    dz = -t / (1.0 + np.exp(t * z)) / len(t)
    return X.T @ dz + alpha * w, np.sum(dz)


def make_data(n=400, features=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, features))
    true_w = np.linspace(-2.0, 2.0, features)
    t = np.where(X @ true_w + 0.5 + rng.normal(size=n) > 0, 1.0, -1.0)
    return X, t


def main():
    X, t = make_data()
    alpha = 1e-2
    gradient = srcad.grad(loss, argnums=(0, 1))  # w and b; X, t and alpha are constants
    w, b = np.zeros(X.shape[1]), 0.0
    worst = 0.0
    for step in range(200):
        dw, db = gradient(w, b, X, t, alpha)
        hand_w, hand_b = closed_form_gradient(w, b, X, t, alpha)
        worst = max(worst, np.max(np.abs(dw - hand_w)), abs(db - hand_b))
        w, b = w - 1.0 * dw, b - 1.0 * db
        if step % 50 == 0:
            print(f"step {step:3d}: loss {loss(w, b, X, t, alpha):.6f}")
    accuracy = np.mean(np.sign(X @ w + b) == t)
    print(f"weights {np.array2string(w, precision=3)}, bias {b:.3f}, "
          f"training accuracy {accuracy:.1%}")
    print(f"max difference from the closed-form gradient over all steps: {worst:.1e}")
    assert worst < 1e-12 and accuracy > 0.85
    return worst


if __name__ == "__main__":
    main()
