"""The refusal of a composed transform whose own derivative code srcad cannot differentiate
again suggests putting grad innermost only where grad is not already innermost."""

import numpy as np
import pytest

import srcad
from srcad.api import chains
from srcad.errors import SrcadError


def cubic(x):
    return np.sum(x ** 3)


def cubes(x):
    return x ** 3


@pytest.fixture
def own_code_refused(monkeypatch):
    """Every compilation of srcad's forward code over a level refused, as srcad's own code
    (the refusal names a generated file, not the user's)."""
    compiled = chains._compiled

    def refusing(function, request):
        if request.mode == "forward":
            raise SrcadError("a construct of generated code", filename="<srcad level #0>",
                             line=3)
        return compiled(function, request)
    monkeypatch.setattr(chains, "_compiled", refusing)


def test_grad_innermost_gets_no_advice_to_put_it_innermost(own_code_refused):
    with pytest.raises(SrcadError) as caught:
        srcad.jacfwd(srcad.grad(cubic))(np.array([1.0, 2.0]))
    assert "its own derivative code" in str(caught.value)
    assert "innermost" not in str(caught.value)


def test_forward_innermost_is_advised_to_put_grad_innermost(own_code_refused):
    with pytest.raises(SrcadError) as caught:
        srcad.jacfwd(srcad.jacfwd(cubes))(np.array([1.0, 2.0]))
    assert "put grad innermost" in str(caught.value)
