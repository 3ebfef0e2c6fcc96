"""Sections 1 and 2 of "never silently wrong, round 3": list entries that alias arrays, and
augmented slice writes with a constant right side under forward mode. Each program is the one
the issue quotes (or its "Also:" variant written out)."""
import numpy as np
from harness import Probe


# 1. Lists hold references, not copies
def same_array_twice(x):
    h = np.zeros(len(x)); hs = []  # noqa: E702
    for t in range(2):  # noqa: B007 -- the program as the issue quotes it
        h[:] = h + x
        hs.append(h)                 # the same array twice
    return np.sum(np.stack(hs))


def entry_written_after_append(x):
    a = x * 1.0
    hs = []
    hs.append(a)
    a[0] = 5.0
    return np.sum(np.stack(hs) * x)


def rows_written_after_appends(x):
    A = np.zeros((2, len(x)))
    rows = []
    for i in range(2):
        rows.append(A[i])
    A[0] = x
    A[1] = 2.0 * x ** 2
    return np.sum(np.stack(rows))


def argument_appended_then_scaled(x):
    hs = []
    hs.append(x)
    x *= 3.0
    return np.sum(np.stack(hs) ** 2)


def literal_then_updated(x):
    a = np.zeros(len(x))
    xs = [a]
    a += x
    return np.sum(xs[0] * x)


def copies_stay_copies(x):  # the right answer must not change when the entry is a copy
    h = np.zeros(len(x)); hs = []  # noqa: E702
    for t in range(2):  # noqa: B007 -- the program as the issue quotes it
        h[:] = h + x
        hs.append(h.copy())
    return np.sum(np.stack(hs) ** 2)


X3 = np.array([1.0, 2.0, 3.0])
LISTS = [Probe(f.__name__, f, X3, "1 lists alias", refusal_allowed=True)
         for f in (same_array_twice, entry_written_after_append, rows_written_after_appends,
                   argument_appended_then_scaled, literal_then_updated)]
LISTS.append(Probe("copies_stay_copies", copies_stay_copies, X3, "1 lists alias"))


# 2. Forward mode drops an augmented slice write with a constant right side
def sine_tail_plus_one(x):
    p = np.sin(x)
    p[1:] += 1.0
    return np.sum(p ** 2)


def built_then_doubled(t):
    p = np.array([t, 1.0])
    p[:] *= 2.0
    return np.sum(p ** 3)


def sine_head_minus(x):
    p = np.sin(x)
    p[:1] -= 0.5
    return np.sum(p ** 3)


def sine_divided(x):
    p = np.sin(x)
    p[1:] /= 4.0
    return np.sum(p ** 3)


def element_plus_constant(x):
    p = np.cos(x)
    p[0] += 2.0
    return np.sum(p ** 3)


def whole_times_constant(x):
    p = x ** 2
    p *= 3.0
    return np.sum(np.sin(p))


def row_plus_constant(x):
    A = np.outer(x, x)
    A[1, :] += 1.5
    return np.sum(A ** 2)


X2 = np.array([0.7, 0.1])
FORWARD = [Probe("sine_tail_plus_one", sine_tail_plus_one, X2, "2 forward slice const"),
           Probe("built_then_doubled", built_then_doubled, 0.6, "2 forward slice const")]
FORWARD += [Probe(f.__name__, f, np.array([0.7, 0.1, -0.4]), "2 forward slice const")
            for f in (sine_head_minus, sine_divided, element_plus_constant,
                      whole_times_constant, row_plus_constant)]
