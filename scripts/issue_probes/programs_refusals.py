"""Section 9's last paragraph from outside: programs srcad must refuse (or differentiate right),
in every mode on both backends. A refusal must name this file, the line and the construct,
and none of srcad's own names (the harness's `INTERNAL` pattern: `_bar`, `_dot`, `<srcad`,
`xs_0`, `srcad/` paths, ...)."""
import math

import numpy as np
from harness import Probe


def raises_on_negative(x):
    if x[0] < -10.0:
        raise ValueError("x[0] too small")
    return np.sum(x ** 2)


def floor_times(x):
    return np.sum(np.floor(x) * x)


def catches(x):
    try:
        y = np.sum(np.sqrt(x))
    except FloatingPointError:
        y = 0.0
    return y


def formats_a_string(x):
    label = f"{x[0]:.3f}"
    return np.sum(x ** 2) * len(label)


def to_list(x):
    values = x.tolist()
    return values[0] * values[1]


def random_draw(x):
    return np.sum(x * np.random.default_rng(0).random(len(x)))


def condition_number(x):
    return np.linalg.cond(np.outer(x, x) + np.eye(len(x)))


def sorts_in_place(x):
    y = x * 1.0
    y.sort()
    return y[0] * y[-1]


def generator_sum(x):
    return sum(math.sin(x[i]) for i in range(len(x)))


def vectorized(x):
    return np.sum(np.vectorize(math.sin)(x))


def set_of_values(x):
    seen = {1, 2}
    return np.sum(x ** 2) * len(seen)


def dict_of_arrays(x):
    d = {"a": x * 2.0, "b": x ** 2}
    return np.sum(d["a"] * d["b"])


def while_with_break_on_value(x):
    s = 0.0
    i = 0
    while True:
        s += x[i % len(x)] ** 2
        i += 1
        if s > 3.0 or i > 20:
            break
    return s


def nested_function_writing_outer(x):
    acc = np.zeros(len(x))

    def add(v):
        acc[:] += v

    add(x ** 2)
    return np.sum(acc * x)


def integer_array_of_floats(x):
    k = x.astype(int)
    return np.sum(x * k)


def round_trip_bytes(x):
    return np.sum(np.frombuffer(x.tobytes()) * x)


X = np.array([0.5, 1.2, 2.3])
REFUSALS = [Probe(f.__name__, f, X, "9 refusals", refusal_allowed=True)
            for f in (raises_on_negative, floor_times, catches, formats_a_string, to_list,
                      random_draw, condition_number, sorts_in_place, generator_sum,
                      vectorized, set_of_values, dict_of_arrays, while_with_break_on_value,
                      nested_function_writing_outer, integer_array_of_floats,
                      round_trip_bytes)]
