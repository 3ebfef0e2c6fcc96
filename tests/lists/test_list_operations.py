"""The other list operations people write, on lists of floats and of ints: `pop(k)`,
`insert`, `del ys[k]`, slice writes and reads, pops and slices inside expressions, `extend`
by a list, an array or a comprehension (srcad/transform/normalize/list_shifts.py,
list_hoists.py), and lists of int constants as int buffers (list_writes.py). Each gradient is
checked against central finite differences and forward against reverse (`check_grads`) in
every mode, the value against Python's; Python's exceptions where Python raises them; what
stays refused is refused with its line."""

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated
from srcad.errors import UnsupportedSyntaxError
from srcad.testing import check_grads


def popped_at(x, a):
    ys = [a, x[0], x[1] * a]
    for i in range(len(x)):
        ys.append(x[i] * a)
    v = ys.pop(1)
    w = ys.pop(-2)
    ys.pop(0)
    for i in range(2):
        s = ys.pop(len(ys) - 3 + i) * v
        ys[i] += s
    return v * w + sum(ys) * ys[0] + ys[-1] * len(ys)


def inserted(x, a):
    ys = [a, x[0]]
    for i in range(len(x)):
        ys.insert(i % 3 - 1, x[i] * a)  # -1 is before the last element
    ys.insert(100, 2.0 * a)  # past the end: appended, as Python clamps
    ys.insert(-100, x[2])  # before the start: at 0
    ys.insert(2, ys[0] * ys[-1])
    return ys[0] * ys[1] + ys[-1] * ys[2] + sum(ys) + ys[3] * ys[-2] + len(ys)


def deleted(x, a):
    ys = [a, x[0], x[1], x[2] * a, x[3], a * a]
    del ys[1]
    del ys[-1]
    del ys[len(x) - 2:len(x)]
    zs = [v * a for v in x]
    del zs[:-2], zs[0]
    return ys[0] * ys[1] + ys[-1] * a + len(ys) + zs[0] * len(zs)


def slices_written(x, a):
    ys = [a, x[0], x[1], x[2] * a, x[3]]
    ys[1:3] = [x[3] * a, x[0] * x[1]]  # as long: element writes
    ys[-2:] = [a]  # shorter: the tail moves down
    ys[:1] = [x[2], a, ys[0]]  # longer: the tail moves up; ys[0] read before
    ys[len(ys) - 1:10] = [x[1], x[0]]
    ys[-10:-5] = [a * x[3]]
    return ys[0] * ys[1] + ys[-1] * a + len(ys) + sum(ys) * ys[2]


def slices_read(x, b):
    ys = []
    for v in x:
        ys.append(v * v)
    zs = ys[1:]
    zs[0] = zs[0] * b  # a new list: ys keeps its element
    first = ys[:-1][-1] + sum(ys[1:3]) * max(ys[-2:])
    k = len(x) // 2
    ws = ys[k - 10:k]
    return sum(zs) + zs[0] * first + ys[1] + sum(ws) * len(ws)


def trimmed(x, a):
    ys = [a]
    for v in x:
        ys.append(v * a)
    ys = ys[1:]  # the same list, shorter: no other name holds it
    k = len(x) // 2
    ys = ys[k - 1:k + 10]
    s = sum(ys) * ys[0]
    queue = [x[0], x[1] * a, a]
    while len(queue) > 1:
        s = s * 0.5 + queue[0] * queue[-1]
        queue = queue[1:]
    return s + queue[0]


def pops_in_expressions(x, a):
    ys = [a]
    s = 0.0
    for v in x:
        ys.append(v * a)
        ys.append(v * v)
        s += ys.pop() * ys.pop() + ys[-1]  # each pop before the read after it
    ys.append(s)
    ys.append(s * s)
    return ys.pop(0) * 2.0 + ys.pop() / (1.0 + ys[0] ** 2)


def extended(x, a):
    ys = [a]
    zs = [a * a, x[0]]
    for v in x:
        zs.append(v * zs[-1])
    ys.extend(zs)
    ys.extend(x)
    ys += [v * a for v in x if v > 0]
    ys.extend(v * 2.0 for v in x)
    ys = ys + zs
    return sum(ys) * ys[-1] + ys[3] * len(ys)


def int_lists(x):
    idx = [2, 0, 1, 3]
    counts = [0] * len(x)
    s = 0.0
    for i in range(len(x)):
        counts[idx[i]] += 1
        counts[(i * 3) % len(x)] += 2
        if x[i] > 0.0:
            idx[i] = idx[(i + 1) % 4]
        s += x[idx[i]] * x[i] * counts[i]
    return s + sum(counts) * x[idx[-1]]


def written_after_filling(x, a):
    ys = []
    n = len(x) - 1  # bound after the list: its array is made once n is
    for i in range(n):
        ys.append(x[i] * x[i + 1])
    ys[0] = ys[-1] * a  # an element assigned after the filling
    return sum(ys) * ys[0]


X = np.array([0.3, -0.7, 1.1, 0.4])


def dup(x):
    return Duplicated(x.copy(), np.zeros_like(x))


CASES = [
    (popped_at, lambda: (dup(X), Active(0.5))),
    (popped_at, lambda: (Const(X), Active(0.5))),
    (inserted, lambda: (dup(X), Active(0.5))),
    (inserted, lambda: (dup(X), Const(0.5))),
    (deleted, lambda: (dup(X), Active(0.5))),
    (slices_written, lambda: (dup(X), Active(0.5))),
    (slices_written, lambda: (Const(X), Active(0.5))),
    (slices_read, lambda: (dup(X), Active(1.5))),
    (slices_read, lambda: (dup(X), Const(1.5))),
    (trimmed, lambda: (dup(X), Active(0.5))),
    (trimmed, lambda: (Const(X), Active(0.5))),
    (pops_in_expressions, lambda: (dup(X), Active(0.5))),
    (extended, lambda: (dup(X), Active(0.7))),
    (extended, lambda: (dup(-X), Const(0.7))),
    (int_lists, lambda: (dup(X),)),
    (int_lists, lambda: (dup(-X),)),
    (written_after_filling, lambda: (dup(X), Active(0.5))),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradients(f, args):
    check_grads(f, *args())


@pytest.mark.parametrize("f, args", CASES[::2], ids=[f.__name__ for f, _ in CASES[::2]])
def test_values_as_python(f, args):
    arguments = args()
    values = [a.value if hasattr(a, "value") else a for a in arguments]
    _, value = srcad.autodiff(srcad.ReverseWithPrimal, f, *arguments)
    assert value == pytest.approx(f(*[np.copy(v) for v in values]), rel=1e-12)


def pop_out_of_range(x, a):
    ys = [a, x[0]]
    return ys.pop(len(x) - 6)  # -2 pops; called with 3 elements: -3, out of range


def pop_of_empty_at(x, a):
    ys = [a]
    ys.pop(0)
    return ys.pop(0) + x[0]


def delete_out_of_range(x, a):
    ys = [a, x[0]]
    del ys[len(x)]
    return ys[0]


@pytest.mark.parametrize("f", [pop_out_of_range, pop_of_empty_at, delete_out_of_range])
@pytest.mark.parametrize("mode", ["Reverse", "Forward"])
def test_index_errors_as_python(f, mode):
    x = X[:3].copy() if f is pop_out_of_range else X.copy()
    with pytest.raises(IndexError):
        f(x, 0.5)
    args = (Const(x), Active(0.5)) if mode == "Reverse" else (
        Duplicated(x, np.ones_like(x)), Duplicated(0.5, 1.0))
    with pytest.raises(IndexError):
        srcad.autodiff(getattr(srcad, mode), f, *args)


def removed(x, a):
    ys = [a, x[0]]
    ys.remove(a)
    return ys[0]


def stepped_slice(x, a):
    ys = [a, x[0], x[1]]
    ys[::2] = [x[2], a]
    return ys[0]


def extended_by_itself(x, a):
    ys = [a, x[0]]
    ys.extend(ys)
    return ys[-1]


def pop_in_an_arm(x, a):
    ys = [a, x[0]]
    s = ys.pop() if a > 0.0 else 0.0
    return s + ys[0]


def pop_after_a_read(x, a):
    ys = [a, x[0]]
    s = ys[-1] * ys.pop()  # ys[-1] is read before the pop: not reordered
    return s + ys[0]


@pytest.mark.parametrize("f, construct, line", [
    (removed, "list", 1), (stepped_slice, "list", 1), (extended_by_itself, "list", 1),
    (pop_in_an_arm, "list", 1), (pop_after_a_read, "list", 1)],
    ids=["remove", "stepped slice", "extend by itself", "pop in an arm", "pop after a read"])
def test_still_refused(f, construct, line):
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.autodiff(srcad.Reverse, f, Const(X), Active(0.5))
    first = f.__code__.co_firstlineno
    assert f"test_list_operations.py:{first + line}:" in str(info.value)
    assert construct in str(info.value)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("f, args", [CASES[0], CASES[2], CASES[14]],
                         ids=["popped_at", "inserted", "int_lists"])
def test_numba(f, args):
    pytest.importorskip("numba")
    check_grads(f, *args(), backend="numba", modes=("fwd", "rev"))
