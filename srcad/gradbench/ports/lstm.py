"""GradBench `lstm`: the loss of ADBench's LSTM (diagonal weights, l layers of b cells) over a
sequence of c characters, and its gradient with respect to main_params and extra_params.

The loop form transliterates cpp/gradbench/evals/lstm.hpp: `lstm_model` updates one layer's
hidden and cell rows in place, `lstm_predict` chains the layers through `layer_output`, a row
view; the objective copies the state into a work array. Its `layer_output` views `output` or
a hidden row depending on the iteration; srcad binds it to copies, since no read sees the
difference (analysis/array_sharing.py). The views form peels the first layer and keeps the
rest (rows of the state passed to `lstm_model` and written there). The reference is JAX's
gradient of the same model written with whole-vector operations (a `lax.scan` over the
sequence).
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


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def logsumexp(vect):
    """log(sum(exp(vect)) + 2), as ADBench defines it."""
    total = 0.0
    for i in range(len(vect)):
        total += math.exp(vect[i])
    total += 2.0
    return math.log(total)


def lstm_model(weight, bias, hidden, cell, inp):
    hsize = len(hidden)
    for i in range(hsize):
        forget = sigmoid(inp[i] * weight[i] + bias[i])
        ingate = sigmoid(hidden[i] * weight[hsize + i] + bias[hsize + i])
        outgate = sigmoid(inp[i] * weight[2 * hsize + i] + bias[2 * hsize + i])
        change = math.tanh(hidden[i] * weight[3 * hsize + i] + bias[3 * hsize + i])
        cell[i] = cell[i] * forget + ingate * change
        hidden[i] = outgate * math.tanh(cell[i])


def lstm_predict(main_params, extra_params, state, inp, output):
    layers = main_params.shape[0] // 2
    b = len(output)
    for i in range(b):
        output[i] = inp[i] * extra_params[0, i]
    layer_output = output
    for i in range(layers):
        lstm_model(main_params[2 * i], main_params[2 * i + 1], state[2 * i], state[2 * i + 1],
                   layer_output)
        layer_output = state[2 * i]
    for i in range(b):
        output[i] = layer_output[i] * extra_params[1, i] + extra_params[2, i]


def lstm_loops(main_params, extra_params, state, sequence):
    c, b = sequence.shape
    total = 0.0
    count = 0
    state_copy = state.copy()
    ypred = np.zeros(b)
    ynorm = np.zeros(b)
    for t in range(c - 1):
        lstm_predict(main_params, extra_params, state_copy, sequence[t], ypred)
        lse = logsumexp(ypred)
        for i in range(b):
            ynorm[i] = ypred[i] - lse
        for i in range(b):
            total += sequence[t + 1, i] * ynorm[i]
        count += b
    return -total / count


# The C++ form with its one run-time alias resolved: `layer_output` points at `output` for the
# first layer and at the previous layer's hidden row after, so the first layer is peeled. The
# rows of the state are still passed to `lstm_model`, which writes them in place.


def lstm_predict_views(main_params, extra_params, state, inp, output):
    layers = main_params.shape[0] // 2
    b = len(output)
    for i in range(b):
        output[i] = inp[i] * extra_params[0, i]
    lstm_model(main_params[0], main_params[1], state[0], state[1], output)
    for i in range(1, layers):
        lstm_model(main_params[2 * i], main_params[2 * i + 1], state[2 * i], state[2 * i + 1],
                   state[2 * i - 2])
    layer_output = state[2 * layers - 2]
    for i in range(b):
        output[i] = layer_output[i] * extra_params[1, i] + extra_params[2, i]


def lstm_views(main_params, extra_params, state, sequence):
    c, b = sequence.shape
    total = 0.0
    count = 0
    state_copy = state.copy()
    ypred = np.zeros(b)
    ynorm = np.zeros(b)
    for t in range(c - 1):
        lstm_predict_views(main_params, extra_params, state_copy, sequence[t], ypred)
        lse = logsumexp(ypred)
        for i in range(b):
            ynorm[i] = ypred[i] - lse
        for i in range(b):
            total += sequence[t + 1, i] * ynorm[i]
        count += b
    return -total / count


# The nearest rewrite with no view at all: the written state is indexed by layer, never passed
# or bound as a row view.


def lstm_model_rows(main_params, layer, state, inp):
    hsize = state.shape[1]
    w = 2 * layer
    h = 2 * layer
    for i in range(hsize):
        forget = sigmoid(inp[i] * main_params[w, i] + main_params[w + 1, i])
        ingate = sigmoid(state[h, i] * main_params[w, hsize + i] + main_params[w + 1, hsize + i])
        outgate = sigmoid(inp[i] * main_params[w, 2 * hsize + i]
                          + main_params[w + 1, 2 * hsize + i])
        change = math.tanh(state[h, i] * main_params[w, 3 * hsize + i]
                           + main_params[w + 1, 3 * hsize + i])
        state[h + 1, i] = state[h + 1, i] * forget + ingate * change
        state[h, i] = outgate * math.tanh(state[h + 1, i])
        inp[i] = state[h, i]  # the next layer's input


def lstm_rows(main_params, extra_params, state, sequence):
    c, b = sequence.shape
    layers = main_params.shape[0] // 2
    total = 0.0
    count = 0
    state_copy = state.copy()
    layer_input = np.zeros(b)
    ypred = np.zeros(b)
    for t in range(c - 1):
        for i in range(b):
            layer_input[i] = sequence[t, i] * extra_params[0, i]
        for layer in range(layers):
            lstm_model_rows(main_params, layer, state_copy, layer_input)
        for i in range(b):
            ypred[i] = layer_input[i] * extra_params[1, i] + extra_params[2, i]
        lse = logsumexp(ypred)
        for i in range(b):
            total += sequence[t + 1, i] * (ypred[i] - lse)
        count += b
    return -total / count


class Problem:
    def __init__(self, data):
        self.main_params = np.array(data["main_params"], dtype=float)
        self.extra_params = np.array(data["extra_params"], dtype=float)
        self.state = np.array(data["state"], dtype=float)
        self.sequence = np.array(data["sequence"], dtype=float)

    @property
    def independent(self):
        return (self.main_params, self.extra_params)

    @property
    def constants(self):
        return (self.state, self.sequence)


def text_matrix(text):
    """Characters as rows of bits (most significant first), as ADBench's generator makes them."""
    bits = math.ceil(math.log2(max(ord(ch) for ch in text)))
    return [[float(bit) for bit in bin(ord(ch))[2:].zfill(bits)] for ch in text]


def generate(l, c, seed=31337):
    # GradBench reads c characters of an English text; a seeded random text of lowercase
    # letters, spaces and punctuation has the same 7 bits per character.
    rng = np.random.RandomState(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz      .,"
    text = "".join(alphabet[i] for i in rng.randint(len(alphabet), size=c))
    sequence = text_matrix(text)
    b = len(sequence[0])
    return {
        "main_params": rng.random_sample((2 * l, 4 * b)).tolist(),
        "extra_params": rng.random_sample((3, b)).tolist(),
        "state": rng.random_sample((2 * l, b)).tolist(),
        "sequence": sequence,
    }


def _make_jax_functions(p):
    jax = jax_or_unavailable()
    import jax.numpy as jnp

    state0, sequence = jnp.asarray(p.state), jnp.asarray(p.sequence)
    layers, b = p.state.shape[0] // 2, p.state.shape[1]

    def objective(main_params, extra_params):
        def step(state, t):
            x = sequence[t] * extra_params[0]
            new_rows = []
            for i in range(layers):
                w, bias = main_params[2 * i], main_params[2 * i + 1]
                hidden, cell = state[2 * i], state[2 * i + 1]
                gates_in = jnp.concatenate((x, hidden, x, hidden)) * w + bias
                forget = jax.nn.sigmoid(gates_in[:b])
                ingate = jax.nn.sigmoid(gates_in[b:2 * b])
                outgate = jax.nn.sigmoid(gates_in[2 * b:3 * b])
                change = jnp.tanh(gates_in[3 * b:])
                cell = cell * forget + ingate * change
                hidden = outgate * jnp.tanh(cell)
                new_rows += [hidden, cell]
                x = hidden
            ypred = x * extra_params[1] + extra_params[2]
            ynorm = ypred - jnp.log(jnp.sum(jnp.exp(ypred)) + 2.0)
            return jnp.stack(new_rows), jnp.sum(sequence[t + 1] * ynorm)

        _, totals = jax.lax.scan(step, state0, jnp.arange(sequence.shape[0] - 1))
        return -jnp.sum(totals) / ((sequence.shape[0] - 1) * b)

    return jax, jax.jit(objective), jax.jit(jax.grad(objective, argnums=(0, 1)))


# JAX's objective and gradient, made (and jitted) once per problem
reference_objective, reference_jacobian, _jax = jax_references(_make_jax_functions)


def _autograd(p):
    autograd = autograd_or_unavailable()
    import autograd.numpy as anp

    layers, b = p.state.shape[0] // 2, p.state.shape[1]

    def objective(params):
        main_params, extra_params = params
        rows = [p.state[r] for r in range(2 * layers)]
        total = 0.0
        for t in range(p.sequence.shape[0] - 1):
            x = p.sequence[t] * extra_params[0]
            for i in range(layers):
                w, bias = main_params[2 * i], main_params[2 * i + 1]
                hidden, cell = rows[2 * i], rows[2 * i + 1]
                gates_in = anp.concatenate((x, hidden, x, hidden)) * w + bias
                forget = 1.0 / (1.0 + anp.exp(-gates_in[:b]))
                ingate = 1.0 / (1.0 + anp.exp(-gates_in[b:2 * b]))
                outgate = 1.0 / (1.0 + anp.exp(-gates_in[2 * b:3 * b]))
                change = anp.tanh(gates_in[3 * b:])
                cell = cell * forget + ingate * change
                hidden = outgate * anp.tanh(cell)
                rows[2 * i], rows[2 * i + 1] = hidden, cell
                x = hidden
            ypred = x * extra_params[1] + extra_params[2]
            total = total + anp.sum(p.sequence[t + 1] * (ypred - anp.log(anp.sum(anp.exp(ypred))
                                                                          + 2.0)))
        return -total / ((p.sequence.shape[0] - 1) * b)

    g = autograd.grad(objective)
    return lambda: tuple(g(p.independent))


FORMS = {"loops": lstm_loops, "loops-views": lstm_views, "loops-rows": lstm_rows}


_build = form_implementations("objective", "jacobian", FORMS,
                              lambda p, form: (p.independent, p.constants))


def jacobian_json(grads):
    return np.concatenate([np.ravel(g) for g in grads]).tolist()


EVAL = Eval(
    name="lstm",
    primal="objective",
    derivative="jacobian",
    sizes={
        "small": {"l": 2, "c": 5},
        "quick": {"l": 2, "c": 1024},
        "default": {"l": 4, "c": 4096},
    },
    generate=generate,
    parse=Problem,
    reference={"objective": reference_objective, "jacobian": reference_jacobian},
    to_json={"objective": float, "jacobian": jacobian_json},
    fd_check=lambda p: gradient_error(lambda: reference_objective(p), p.independent,
                                      reference_jacobian(p)),
    implementations=(
        _build("primal", "loops"),
        _build("primal", "loops-views"),
        _build("primal", "loops-rows"),
        _build("python", "loops"),
        _build("numba", "loops"),
        _build("python", "loops-views"),
        _build("numba", "loops-views"),
        _build("python", "loops-rows"),
        _build("numba", "loops-rows"),
        Implementation("jacobian", "jax", "vectorized", _jax),
        Implementation("jacobian", "autograd", "vectorized", _autograd),
    ),
)
