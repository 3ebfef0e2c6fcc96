import sys

import pytest

from srcad.build import cache


@pytest.fixture
def module_dir(tmp_path, monkeypatch):
    """A folder on sys.path for a user's modules; what they imported is forgotten after."""
    monkeypatch.syspath_prepend(str(tmp_path))
    names = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - names:
        del sys.modules[name]
    cache.clear()
