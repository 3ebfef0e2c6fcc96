"""Functions typed at an interactive prompt: Python 3.13's prompt keeps each input in
`linecache` as `<python-input-N>` (IPython and Jupyter likewise), and srcad reads the source
from there; where Python kept no text the refusal says so and how to proceed."""

import linecache

import pytest

import srcad


def _typed(text, name):
    """What Python 3.13's prompt does with an input (linecache._register_code), then runs."""
    linecache.cache[name] = (len(text), None, [line + "\n" for line in text.splitlines()],
                             "<stdin>")
    namespace = {}
    exec(compile(text, name, "exec"), namespace)
    return namespace


def test_function_typed_at_the_prompt_is_differentiated():
    name = "<python-input-8812>"
    try:
        namespace = _typed("def cube(x):\n    return x * x * x", name)
        assert srcad.autodiff(srcad.Reverse, namespace["cube"], srcad.Active(2.0)) == (12.0,)
        assert srcad.gradient(namespace["cube"], 3.0) == 27.0
    finally:
        linecache.cache.pop(name, None)


def test_no_source_says_where_and_what_to_do():
    namespace = {}
    exec(compile("def square(x):\n    return x * x", "<string>", "exec"), namespace)
    with pytest.raises(srcad.SrcadError, match=r"defined in <string>.*keeps no text.*"
                       r"define the function in a file"):
        srcad.autodiff(srcad.Reverse, namespace["square"], srcad.Active(2.0))
