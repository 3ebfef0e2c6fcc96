"""srcad's imports point one way with nothing hidden: no module imports srcad inside a
function to dodge a cycle (a shared piece moves down to a module both can import, or the
higher module registers itself at import), and import-linter checks that the modules of
every package import one way (the `acyclic` contract in pyproject.toml; `lint-imports` runs
in `make lint`). What stays inside functions: numba, imported only when the numba backend
asks (srcad.runtime.numba_functions imports it), and the optional libraries (scipy, jax,
dask, tqdm, pygments), which are not srcad."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (module, what it imports inside a function): numba only when the numba backend asks
ALLOWED = {
    ("srcad/api/custom_rules.py", "srcad.runtime.numba_functions"),
    ("srcad/build/compiler.py", "srcad.runtime.numba_functions"),
}


def _imported(node, package) -> list:
    """The srcad modules `node` (an import statement in a module of `package`) imports."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "srcad"]
    if node.level:  # relative: srcad's own
        base = package.split(".")[:len(package.split(".")) - node.level + 1]
        return [".".join(base + ([node.module] if node.module else []))]
    return [node.module] if node.module.split(".")[0] == "srcad" else []


def function_level_imports(root) -> set:
    """(module path, imported srcad module) for each import of srcad inside a function."""
    found = set()
    for path in sorted((root / "srcad").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
        tree = ast.parse(path.read_text(), relative)
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found.update((relative, name) for name in _imported(node, package))
    return found


def test_no_module_imports_srcad_inside_a_function():
    assert function_level_imports(ROOT) - ALLOWED == set()


def test_the_allowed_imports_are_still_there():
    assert ALLOWED <= function_level_imports(ROOT)


def test_import_linter_forbids_cycles_inside_every_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["id"] == "acyclic"]
    assert contract["type"] == "acyclic_siblings"
    assert contract["ancestors"] == ["srcad"]


def names_from_own_package(root) -> set:
    """(module path, name) for each name a module takes from its own package's __init__
    (`from srcad.rules import linear` in srcad/rules/movement.py) that is not a submodule:
    the __init__ imports the package's modules, so such an import is a cycle through the
    package, which the sibling contract does not see."""
    found = set()
    for path in sorted((root / "srcad").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
        folder = path.parent
        for node in ast.walk(ast.parse(path.read_text())):
            own = isinstance(node, ast.ImportFrom) and node.module == package
            parent, _, last = package.rpartition(".")
            whole = (isinstance(node, ast.ImportFrom) and node.module == parent
                     and any(a.name == last for a in node.names))
            if whole:
                found.add((path.relative_to(root).as_posix(), package))
            if own:
                found.update((path.relative_to(root).as_posix(), a.name) for a in node.names
                             if not (folder / f"{a.name}.py").exists()
                             and not (folder / a.name).is_dir())
    return found


def test_no_module_imports_names_through_its_own_package():
    assert names_from_own_package(ROOT) == set()
