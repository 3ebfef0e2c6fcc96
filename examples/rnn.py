"""A recurrent neural network, h_t = tanh(W h_{t-1} + U x_t + b), trained to predict the next
value of a noisy sine wave; the gradient of the loss over the whole sequence with respect to
W, U, b and the readout v comes from one reverse pass (backpropagation through time).

The hidden state is rebound in the loop (`h = np.tanh(...)`): srcad keeps a reference to each
hidden state for the reverse sweep, not a copy.

Run with ``python examples/rnn.py``.
"""

import numpy as np

import srcad


def sequence_loss(W, U, b, v, xs, targets):
    """Mean squared error of the readout v . h_t against targets[t] over the sequence."""
    h = np.zeros(len(b))
    total = 0.0
    for t in range(len(xs)):
        h = np.tanh(W @ h + U * xs[t] + b)
        total += (np.dot(v, h) - targets[t]) ** 2
    return total / len(xs)


def make_sequence(T=40, seed=0):
    rng = np.random.default_rng(seed)
    wave = np.sin(np.linspace(0.0, 4 * np.pi, T + 1)) + 0.05 * rng.normal(size=T + 1)
    return wave[:-1], wave[1:]


def main():
    hidden = 8
    rng = np.random.default_rng(1)
    W = 0.3 * rng.normal(size=(hidden, hidden))
    U, b, v = rng.normal(size=hidden), np.zeros(hidden), 0.3 * rng.normal(size=hidden)
    xs, targets = make_sequence()
    gradient = srcad.value_and_grad(sequence_loss, argnums=(0, 1, 2, 3))
    for step in range(301):
        value, (dW, dU, db, dv) = gradient(W, U, b, v, xs, targets)
        if step % 100 == 0:
            print(f"step {step:3d}: loss {value:.5f}")
        W, U, b, v = W - 0.1 * dW, U - 0.1 * dU, b - 0.1 * db, v - 0.1 * dv
    # d loss / d W against central finite differences, entry by entry
    value, (dW, dU, db, dv) = gradient(W, U, b, v, xs, targets)
    fd = np.zeros_like(W)
    step = 1e-6
    for i in range(hidden):
        for j in range(hidden):
            up, down = W.copy(), W.copy()
            up[i, j] += step
            down[i, j] -= step
            fd[i, j] = (sequence_loss(up, U, b, v, xs, targets)
                        - sequence_loss(down, U, b, v, xs, targets)) / (2 * step)
    error = np.max(np.abs(dW - fd)) / np.max(np.abs(fd))
    print(f"max relative difference of d loss / d W from finite differences: {error:.1e}")
    assert error < 1e-5
    return error


if __name__ == "__main__":
    main()
