"""The source of the numba kernels of a nested gradient (srcad/operators/nested_numba.py): each
boxes g's float arguments, sets up the adjoints, directions and tapes, calls srcad's numba
derivative code of g and returns the adjoints asked for.

Guarantee: a kernel call allocates only the arrays it returns (and the gradient's `_into`
variant not even those where its `out` has their shape). Everything else it hands to g's
derivative code (a float argument boxed as a one-element array, the adjoints it does not
return, zero directions, the tapes) is carved out of a workspace the calling function creates
once per call of its own (`WORKSPACE_INIT`) and passes to every kernel call:
`srcad_space`, a list whose first array is the float buffer and the rest float tapes, and
`srcad_int_space`, the int tapes. A kernel grows them when they are too small, and keeps a
tape g's code grew. Kernels never run inside each other, and what they return is freshly
allocated, so the views they carve die with the kernel call.

Cost per call: the workspace list is read once (`space[0]`, and each tape of g's code; a
read changes the array's reference count atomically, ~10 ns), the helper that grows it runs
only when it is too small, and a 1-D argument's views are plain slices (a `reshape` calls
numba's C helper). g's derivative code is compiled into each kernel (`srcad_inlined_jit`,
numba's `inline='always'`), so the views and boxes it is handed never cross a call.

>>> writer = KernelWriter(count=2, floats=(1,), differentiated=[0, 1], argnum=0)
>>> print(writer.gradient("grad_1", ["o0", "o1"], "g_reverse", []))
@srcad_jit
def grad_1(space, int_space, o0, o1):
    a0 = o0
    a0_bar = np.zeros_like(a0)
    buf = space[0]
    if buf.shape[0] < 2:
        buf = srcad_nested_space(space, int_space, 2, 0, 0)
    a1 = buf[0:1]
    a1[0] = o1
    a1_bar = buf[1:2]
    a1_bar[0] = 0.0
    g_reverse(a0, a0_bar, a1, a1_bar, 1.0)
    return a0_bar
"""

from __future__ import annotations

from srcad.transform.tapes import INT_TAPE

# the workspace's names in the calling function, and the kernels' parameters for it
SPACE, INT_SPACE = "srcad_space", "srcad_int_space"
WORKSPACE_INIT = f"{SPACE}, {INT_SPACE} = srcad_nested_workspace()"

# jitted into the module once (their names: HELPER_NAMES)
HELPERS = '''@srcad_jit
def srcad_nested_workspace():
    return [np.empty(0)], [np.empty(0, np.int64)]


@srcad_jit
def srcad_nested_space(space, int_space, need, float_tapes, int_tapes):
    if space[0].shape[0] < need:
        space[0] = np.empty(max(need, 2 * space[0].shape[0]))
    while len(space) < 1 + float_tapes:
        space.append(np.empty(64))
    while len(int_space) < int_tapes:
        int_space.append(np.empty(64, np.int64))
    return space[0]
'''
HELPER_NAMES = frozenset({"srcad_nested_workspace", "srcad_nested_space"})


class KernelWriter:
    """Writes the kernels of one inner function g: `count` arguments, those at `floats`
    boxed, those `differentiated` given adjoints, the gradient taken in argument `argnum`."""

    def __init__(self, count, floats, differentiated, argnum, vectors=()):
        self.count, self.floats = count, floats
        self.differentiated, self.argnum = differentiated, argnum
        # the 1-D array arguments: a slice of the workspace is already their shape (a reshape
        # calls numba's C helper, ~30 ns a view)
        self.vectors = frozenset(vectors)

    def gradient(self, name, operands, reverse, tapes, scratch=False, into=False):
        """The gradient of g in argument `argnum` (g's reverse code, seeded 1); `scratch`:
        returned as a view of the workspace (srcad/operators/nested_scratch_results.py);
        `into`: written into the kernel's last parameter `out` where it has the gradient's
        shape (the array the result's name owns: srcad/operators/nested_result_reuse.py)."""
        outs = {f"a{self.argnum}_bar": "out"} if into else {}
        body = self._carve(self._call_order(operands), {}, (self.argnum,), tapes, second=False,
                           scratch=scratch, into=outs)
        args = []
        for i in range(self.count):
            args += [f"a{i}", f"a{i}_bar"] if i in self.differentiated else [f"a{i}"]
        body += self._call(reverse, args, tapes)
        return self._kernel(name, operands, ["out"] if into else [],
                            body + [f"    return {self._result(self.argnum)}"])

    def second(self, name, operands, second, tapes, directed, reads, gradient=False,
               scratch=False, into=False):
        """The adjoints H d of g's arguments `reads` for the directions d on the arguments
        `directed` (the kernel's last parameters, in that order): one reverse-over-forward
        pass. Returns one adjoint, or a tuple of several (`reads` a list); `gradient`: the
        pair (gradient of g in `argnum`, H d), the gradient being the adjoint of the
        direction on `argnum`; with `into` (a pair of an array argument `reads`), written
        into the parameters `out0`, `out1` after the directions where they have its shape."""
        directions = [f"d{j}" for j in range(len(directed))]
        read = [reads] if isinstance(reads, int) else list(reads)
        outs = {f"a{self.argnum}_dot_bar": "out0", f"a{reads}_bar": "out1"} if into else {}
        body = self._carve(self._call_order(operands), dict(zip(directed, directions)), read,
                           tapes, second=True, gradient=gradient, scratch=scratch, into=outs)
        directions += list(outs.values())
        args = []
        for i in range(self.count):
            args += [f"a{i}", f"a{i}_bar", f"a{i}_dot", f"a{i}_dot_bar"] \
                if i in self.differentiated else [f"a{i}"]
        body += self._call(second, args, tapes)
        results = ", ".join(self._result(r) for r in read)
        if gradient:
            results = f"{self._result(self.argnum, '_dot_bar')}, {results}"
        body.append(f"    return ({results})" if gradient else f"    return {results}"
                    if isinstance(reads, int) else f"    return ({results},)")
        return self._kernel(name, operands, directions, body)

    def _kernel(self, name, operands, directions, body):
        params = ", ".join(["space", "int_space", *operands, *directions])
        return "\n".join([f"@srcad_jit\ndef {name}({params}):"] + body)

    def _carve(self, order, directed, read, tapes, second, gradient=False, scratch=False,
               into=None):
        """Lines binding a{i}, a{i}_bar (and a{i}_dot, a{i}_dot_bar when `second`) for every
        argument: the returned adjoints of arrays fresh (unless `scratch`), everything else
        from the workspace (views written in place: a helper call per view cost ~20 ns)."""
        lines, carved = [], []  # carved: (name, its value: a box's or None for zeros, size)

        def slot(target, i, value=None):
            carved.append((target, value, "1" if i in self.floats else f"a{i}.size"))

        for i, o in enumerate(order):
            if i in self.floats:
                slot(f"a{i}", i, o)
            else:
                lines.append(f"    a{i} = {o}")
            if i not in self.differentiated:
                continue
            if i in read and i not in self.floats and not scratch:
                lines += _fresh(f"a{i}_bar", f"a{i}", (into or {}).get(f"a{i}_bar"))
            else:
                slot(f"a{i}_bar", i)
            if not second:
                continue
            if i in directed and i not in self.floats:
                lines.append(f"    a{i}_dot = {directed[i]}")
            else:
                slot(f"a{i}_dot", i, directed.get(i))
            if gradient and i == self.argnum and i not in self.floats and not scratch:
                lines += _fresh(f"a{i}_dot_bar", f"a{i}", (into or {}).get(f"a{i}_dot_bar"))
            else:
                slot(f"a{i}_dot_bar", i)
        int_tapes = sum(kind == INT_TAPE for kind in tapes)
        sizes = [size for _, _, size in carved]
        need = " + ".join([str(sizes.count("1"))] + [s for s in sizes if s != "1"])
        # one read of the workspace list per call (each ~10 ns: the array's reference count
        # changes atomically); the helper only where it must grow
        grow = f"srcad_nested_space(space, int_space, {need}, {len(tapes) - int_tapes}, " \
            f"{int_tapes})"
        lines += ["    buf = space[0]", f"    if buf.shape[0] < {need}:", f"        buf = {grow}"]
        short = ([f"len(space) < {1 + len(tapes) - int_tapes}"] if len(tapes) > int_tapes
                 else []) + ([f"len(int_space) < {int_tapes}"] if int_tapes else [])
        if short:  # the tapes of g's code
            lines += [f"    if {' or '.join(short)}:", f"        {grow}"]
        at = "0"
        for target, value, size in carved:
            end = _plus(at, size)
            if size == "1":
                lines += [f"    {target} = buf[{at}:{end}]",
                          f"    {target}[0] = {'0.0' if value is None else value}"]
            elif int(target.split("_")[0][1:]) in self.vectors:
                lines += [f"    {target} = buf[{at}:{end}]", f"    {target}[:] = 0.0"]
            else:
                like = target.split("_")[0]
                lines += [f"    {target} = buf[{at}:{end}].reshape({like}.shape)",
                          f"    {target}[...] = 0.0"]
            at = end
        return lines

    @staticmethod
    def _call(function, args, tapes):
        """The call of g's derivative code with the workspace's tapes, keeping a grown one."""
        floats = ints = 0
        tape_args, kept = [], []
        for position, kind in enumerate(tapes):
            if kind == INT_TAPE:
                slot = f"int_space[{ints}]"
                ints += 1
            else:
                floats += 1
                slot = f"space[{floats}]"
            tape_args.append(slot)
            kept += [f"    if out[{2 + position}] is not None:",
                     f"        {slot} = out[{2 + position}]"]
        call = f"{function}({', '.join(args + ['1.0'] + tape_args)})"
        return [("    out = " if kept else "    ") + call] + kept

    def _result(self, position, adjoint="_bar"):
        return f"a{position}{adjoint}[0]" if position in self.floats else f"a{position}{adjoint}"

    def _call_order(self, operands):
        """g's argument expressions from the kernel's operands (x first)."""
        x, *rest = operands
        return rest[:self.argnum] + [x] + rest[self.argnum:]


def _plus(offset: str, size: str) -> str:
    """`offset + size`, literal numbers added up: '0' + '1' is '1', '2' + 'a0.size' is
    '2 + a0.size'."""
    if offset.isdigit() and size.isdigit():
        return str(int(offset) + int(size))
    return size if offset == "0" else f"{offset} + {size}"


def _fresh(target, like, out=None) -> list:
    """Lines binding `target` to zeros shaped like `like`: the parameter `out` zeroed where it
    has that shape, else (or without `out`) a new array."""
    if out is None:
        return [f"    {target} = np.zeros_like({like})"]
    return [f"    if {out}.shape == {like}.shape:", f"        {target} = {out}",
            f"        {target}[...] = 0.0", "    else:",
            f"        {target} = np.zeros_like({like})"]
