"""What a user installing srcad relies on: a version number with one source, the license, the
type marker shipped with the package, and docstrings and type hints on the public API."""

import inspect
import pathlib
import re
import tomllib

import srcad

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_has_one_source():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    module, name = attr.rsplit(".", 1)
    assert getattr(__import__(module, fromlist=[name]), name) == srcad.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", srcad.__version__)


def test_the_license_and_metadata_are_declared():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert "Copyright (c)" in (ROOT / "LICENSE").read_text()
    assert (ROOT / project["readme"]).exists()
    assert project["authors"] and project["classifiers"] and project["keywords"]
    assert "scipy" in " ".join(project["optional-dependencies"]["dev"])
    # srcad.dask needs both, on a user's machine (extra `dask`) and in the test suite (`dev`)
    for extra in ("dask", "dev"):
        needs = " ".join(project["optional-dependencies"][extra])
        assert "dask[array]" in needs and "distributed" in needs


def test_the_type_marker_ships_with_the_package():
    assert (ROOT / "srcad" / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["srcad"]


def public_functions():
    return [(name, getattr(srcad, name)) for name in srcad.__all__
            if inspect.isfunction(getattr(srcad, name))]


def test_every_public_function_has_a_docstring():
    missing = [name for name, f in public_functions() if not (f.__doc__ or "").strip()]
    assert not missing, missing


def test_every_public_function_has_type_hints():
    missing = []
    for name, f in public_functions():
        signature = inspect.signature(f)
        unannotated = [p.name for p in signature.parameters.values()
                       if p.annotation is inspect.Parameter.empty]
        if unannotated or signature.return_annotation is inspect.Signature.empty:
            missing.append((name, unannotated))
    assert not missing, missing


def test_the_docstring_examples_of_the_public_modules_run():
    import doctest

    import srcad.analysis.definite_assignment
    import srcad.api
    import srcad.api.custom_rules
    import srcad.api.decorators
    import srcad.api.function_transforms
    import srcad.build.differentiate
    import srcad.operators.directional_operators
    import srcad.operators.first_order
    import srcad.operators.gradient_operators
    import srcad.operators.hessian_operators
    import srcad.operators.jacobian_operators
    import srcad.operators.second_order
    import srcad.operators.second_order_refusals
    import srcad.rules.custom
    import srcad.rules.table
    import srcad.runtime.checkpointing
    import srcad.testing

    for module in (srcad, srcad.api, srcad.build.differentiate, srcad.api.decorators,
                   srcad.operators.first_order,
                   srcad.operators.gradient_operators, srcad.operators.jacobian_operators,
                   srcad.operators.directional_operators, srcad.operators.second_order,
                   srcad.operators.hessian_operators, srcad.operators.second_order_refusals,
                   srcad.api.function_transforms, srcad.testing, srcad.runtime.checkpointing,
                   srcad.analysis.definite_assignment, srcad.api.custom_rules,
                   srcad.rules.custom, srcad.rules.table):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_tqdm_is_optional_in_its_own_extra_and_in_dev():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert any(d.startswith("tqdm") for d in extras["progress"])
    assert any(d.startswith("tqdm") for d in extras["dev"])
    assert not any(d.startswith("tqdm") for d in PYPROJECT["project"]["dependencies"])


def test_the_install_lines_are_ones_that_work_from_a_clone():
    """srcad is on no package index: no page tells a reader to `pip install srcad`; the
    README and the home page give the clone's commands and name every extra."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    index_claim = re.compile(r"""pip install\s+(-\w+\s+)*["']?srcad\b""")
    claims = [p.name for p in pages if index_claim.search(p.read_text())]
    assert not claims, claims
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    for page in (ROOT / "README.md", ROOT / "docs" / "index.md"):
        text = page.read_text()
        assert "pip install .  " in text and 'pip install ".[numba]"' in text
        assert "make dist" in text
        named = set(re.findall(r"`(\w+)`\s+\(", text.split("The extras:")[1].split("\n\n")[0]))
        assert named == extras, (page.name, named ^ extras)
    assert re.search(r"^dist:", (ROOT / "Makefile").read_text(), re.MULTILINE)
