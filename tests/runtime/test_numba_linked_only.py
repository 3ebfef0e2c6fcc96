"""srcad/runtime/numba_linked_only.py: an overload's implementation, which Python never calls
and every caller links into its own module, gets no machine code of its own; its callers run
it, raise its dynamic exceptions with their values (its environment set in the caller's
module), a function passed as a value still gets its machine code, and a cached kernel is
read back by a second process."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from numba.extending import overload  # noqa: E402

import srcad.runtime.numba_runtime  # noqa: E402, F401 - installs the deferral
from srcad.runtime.numba_linked_only import linked_only_without_machine_code  # noqa: E402


def _checked(x):
    raise NotImplementedError  # only compiled


@overload(_checked)
def _checked_overload(x):
    def impl(x):
        if x < 0:
            raise ValueError("negative", x)  # a dynamic exception: its value from the call
        return np.zeros(3) + x

    return impl


def _libraries(library, seen=None):
    seen = set() if seen is None else seen
    for linked in library._linking_libraries:
        if id(linked) not in seen:
            seen.add(id(linked))
            yield linked
            yield from _libraries(linked, seen)


def test_an_overload_s_implementation_runs_in_two_callers_without_machine_code_of_its_own():
    assert linked_only_without_machine_code()  # installed when the runtime loaded; a no-op now

    @numba.njit
    def once(x):
        return _checked(x)

    @numba.njit(nogil=True)
    def twice(x):
        return _checked(x) * 2.0

    assert once(1.5).tolist() == [1.5, 1.5, 1.5]
    assert twice(2.0).tolist() == [4.0, 4.0, 4.0]
    for kernel in (once, twice):
        with pytest.raises(ValueError) as raised:
            kernel(-1.5)
        assert raised.value.args == ("negative", -1.5)
    library = once.overloads[once.signatures[0]].library
    implementation = [lib for lib in _libraries(library) if "_checked_overload" in lib.name]
    assert len(implementation) == 1 and implementation[0].srcad_deferred
    assert not getattr(library, "srcad_deferred", False)  # the kernel itself: machine code
    # asked for its address afterwards (a function passed as a value), it gets machine code
    wrapper = [f.name for f in implementation[0]._final_module.functions
               if f.name.startswith("cfunc.") and not f.is_declaration]
    assert implementation[0].get_pointer_to_function(wrapper[0]) != 0
    assert not implementation[0].srcad_deferred
    assert once(0.5).tolist() == [0.5, 0.5, 0.5] and twice(0.5).tolist() == [1.0, 1.0, 1.0]


def test_a_function_passed_as_a_value_gets_its_machine_code():
    @numba.njit
    def add_one(x):
        return x + 1.0

    @numba.njit
    def apply(f, x):
        return f(x)

    assert apply(add_one, 2.0) == 3.0


@pytest.mark.slow  # two new processes, each compiling or loading with numba
def test_a_cached_kernel_calling_overloads_is_read_back_by_a_second_process(tmp_path):
    (tmp_path / "cached_kernel.py").write_text(textwrap.dedent("""
        import numba, numpy as np
        import srcad.runtime.numba_runtime

        @numba.njit(cache=True)
        def kernel(n):
            a = np.zeros((n, 2))
            a[:, 1] = np.arange(n)
            return np.sum(np.exp(a)) + max(n, 3)
    """))
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import cached_kernel as c; "
              "print(repr(c.kernel(4)), len(c.kernel.stats.cache_hits))")
    runs = [subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True,
                           text=True, check=True, env={"NUMBA_CACHE_DIR": str(tmp_path / "c"),
                                                       "PATH": ""}).stdout.split()
            for _ in range(2)]
    expected = 4.0 + float(np.sum(np.exp(np.arange(4.0)))) + 4
    assert float(runs[0][0]) == pytest.approx(expected, rel=1e-15)
    assert runs[1][0] == runs[0][0]
    assert (runs[0][1], runs[1][1]) == ("0", "1")  # compiled, then read from numba's cache
