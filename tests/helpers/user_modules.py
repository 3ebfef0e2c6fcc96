"""A user's own modules: written to disk, imported, edited, as at a prompt or in an editor."""
import importlib
import importlib.util
import itertools
import os
import sys
import textwrap

_clock = itertools.count(10, 10)


def write_source(path, source):
    """Write `source` (dedented) and move the file's mtime on, so linecache and the import
    system see an edit even within one second."""
    path.write_text(textwrap.dedent(source))
    stamp = os.stat(path).st_mtime + next(_clock)
    os.utime(path, (stamp, stamp))


def import_source(directory, name, source):
    """Write module `name` into `directory` (on sys.path) and import it."""
    write_source(directory / f"{name}.py", source)
    importlib.invalidate_caches()
    return importlib.import_module(name)


def load_module(directory, name, source):
    """Write module `name` into `directory` and load it from its file, registered in
    sys.modules, without putting the directory on sys.path."""
    path = directory / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
