"""Functions of parameter containers (dicts, lists, tuples of arrays and floats), for
tests/operators/test_containers.py (srcad reads their source from this file)."""

import math

import numpy as np


def simple(params, x):
    return params["a"] * x[0] + params["b"][1] * params["a"]


def dense(layer, h):
    return np.tanh(layer["W"] @ h + layer["b"])


def predict(params, x):
    h = x
    layers = params["layers"]
    for layer in layers:
        h = dense(layer, h)
    return h


def mlp_loss(params, x):
    w, b = params["out"]
    y = predict(params, x)
    return np.sum(w * y) + b + params["scale"] * params["scale"]


def scalar_loss(params, x, lam):
    s = 0.0
    for i in range(len(params["b"])):
        a = params["b"][i]
        for j in range(len(x)):
            a += params["W"][i, j] * x[j]
        s += math.tanh(a) * params["v"][i]
    return s + lam * params["c"] * params["c"]


def tuple_params(params, x):
    w, b = params
    s = b
    for i in range(len(x)):
        s += w[i] * x[i] * x[i]
    return s


def outputs(params, x):
    y = np.zeros(2)
    y[0] = params["a"] * x[0] * x[1]
    y[1] = params["a"] * params["w"][0] + params["w"][1] * x[0]
    return y


def computed_index(params, k):
    return params[0][0] * params[k]


def iterate_entries(params, x):
    s = 0.0
    for layer in params["layers"]:
        for i in range(len(x)):
            s += math.tanh(layer["w"][i] * x[i] + layer["b"])
    for k, w in enumerate(params["ws"], 1):
        s = s * w * k
    for v in params["nested"][0]:
        s = s + v * v
    return s


def quadratic_mix(p, x):
    return p["c"] * p["c"] * x[0] + np.sum(p["w"] * p["w"] * x) * p["c"] + p["k"]


def two_outputs(p, x):
    s = 0.0
    for i in range(len(x)):
        s += p["w"][i] * x[i]
    return s * p["c"], p["w"] * p["c"]


def leaf_in_library_call(params, x):
    return np.sum(params["w"].conj() * x)  # the method conj has no array rule


def iterate_dict(params, x):
    s = 0.0
    for key in params:
        s += params[key] * x[0]
    return s
