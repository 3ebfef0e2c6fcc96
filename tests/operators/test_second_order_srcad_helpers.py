"""Second order differentiates srcad's generated code, which calls srcad's own helpers
(srcad/runtime/). A helper that has no rule of its own is read as code to inline; where srcad
refuses it, the refusal is located at the generated call, so the operators fall back to
reverse over forward and otherwise name the user's line, never srcad's file."""

import os

import numpy as np

import srcad
from srcad.errors import SrcadError
from srcad.rules import table
from srcad.runtime import linalg_runtime

SRCAD_DIR = os.path.dirname(srcad.__file__)


def test_a_refusal_in_srcads_own_helper_is_located_at_its_call():
    helper_file = linalg_runtime.__file__
    refused = SrcadError("variadic arguments", filename=helper_file, line=48, construct="call")
    told = refused.called_from("einsum_adjoint", "f_reverse", "<srcad f_reverse #0>", 18)
    assert (told.filename, told.line) == ("<srcad f_reverse #0>", 18)
    assert SRCAD_DIR not in str(told)


def contraction(x):
    return np.sum(np.einsum("ij,kj->ik", x, x) ** 2)


def test_without_the_helpers_rule_the_hessian_falls_back_and_agrees(monkeypatch):
    # the einsum adjoint's rule hidden: forward mode over the reverse code refuses the
    # helper (its *operands); reverse over forward gives the Hessian, as srcad did before
    # the helper had a rule
    x = np.random.default_rng(1).normal(size=(3, 2))
    monkeypatch.delitem(table._TABLE, id(linalg_runtime.einsum_adjoint))
    H = srcad.hessian(contraction, x)
    eps = 1e-6
    g = srcad.grad(contraction)
    columns = [(g(x + eps * e.reshape(x.shape)) - g(x - eps * e.reshape(x.shape))).ravel()
               / (2 * eps) for e in np.eye(x.size)]
    np.testing.assert_allclose(H, np.array(columns).T, rtol=1e-6, atol=1e-6)
