"""An error of another type raised while numba types srcad's generated code (numba's own
`assert isinstance(ret, types.Array)` in its typing of np.concatenate of a list of rows) is
numba refusing to compile the code: a SrcadError naming the user's file, not a bare
AssertionError a caller cannot tell from a failed check (a fuzzed list-of-rows program on
numba raised one). Errors the compiled code raises when it runs are left as they are."""

import pytest

from srcad.build.numba_errors import raise_numba_error
from srcad.errors import SrcadError


def _raised_in(filename: str, error: Exception) -> Exception:
    """`error` raised by code compiled under `filename` (a frame of numba's typing)."""
    namespace = {"error": error}
    exec(compile("def typing():\n    raise error\n", filename, "exec"), namespace)
    try:
        namespace["typing"]()
    except Exception as raised:  # noqa: BLE001 -- the error under test
        return raised
    raise AssertionError("not raised")


def test_an_assert_in_numbas_typing_is_refused_naming_the_users_file():
    err = _raised_in("/site-packages/numba/core/typeinfer.py", AssertionError())
    with pytest.raises(SrcadError) as caught:
        raise_numba_error(err, "model.py")
    assert caught.value.filename == "model.py"
    assert "numba cannot compile the generated code" in str(caught.value)
    assert "AssertionError" in str(caught.value)


def test_an_error_the_compiled_code_raises_passes():
    err = _raised_in("model.py", AssertionError("x must be positive"))
    assert raise_numba_error(err, "model.py") is None
