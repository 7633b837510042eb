"""``ownership audit FILE.py [NAME] [--json] [--strict]``: the audit table of a module a file defines.

The file is loaded as a module (not as ``__main__``: its ``if __name__ == "__main__":`` block,
a training run, does not run), with its folder first on ``sys.path``. ``NAME`` is a module
object of the file (an ``ownership.nn.Module`` or a ``torch.nn.Module``), or a class or function
that builds one without arguments. Without ``NAME``, every module object at the file's top level
is audited, or, when there is none, every ``Module`` class the file defines that builds without
arguments. Each gets :func:`ownership.audit`'s table and flags.

Exit status: 0; 1 when the file raised while loading (nothing was audited), or under
``--strict`` when a table has a flag; 2 a usage error (no such file, no module to audit).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import sys
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ownership.auditing import AuditTable, audit

__all__ = ["main", "modules_of"]

_LOADED = "__ownership_audit__"


def _is_module(obj: object) -> bool:
    return not isinstance(obj, type) and callable(getattr(obj, "named_modules", None))


def _load(path: Path) -> dict[str, Any]:
    """Run ``path`` as a module; its namespace."""
    spec = importlib.util.spec_from_file_location(_LOADED, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    saved_path, saved_argv = sys.path[:], sys.argv[:]
    sys.path.insert(0, str(path.parent))
    sys.argv = [str(path)]
    sys.modules[_LOADED] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:], sys.argv = saved_path, saved_argv
        sys.modules.pop(_LOADED, None)
    return vars(module)


def modules_of(namespace: dict[str, Any], name: str | None) -> dict[str, Any]:
    """The modules to audit in a loaded file's ``namespace`` (see the module's docstring),
    by the name they are shown under; ``LookupError`` says why there is none."""
    if name is not None:
        if name not in namespace:
            raise LookupError(f"the file defines no {name!r}")
        obj = namespace[name]
        if not _is_module(obj) and callable(obj) and not _builds_alone(obj):
            raise LookupError(
                f"{name!r} needs arguments to build: name a module object, or a function that "
                "builds one without arguments"
            )
        built = obj if _is_module(obj) else obj() if callable(obj) else obj
        if not _is_module(built):
            raise LookupError(f"{name!r} is not a module, nor builds one without arguments")
        return {name if built is obj else f"{name}()": built}
    found = {k: v for k, v in namespace.items() if not k.startswith("_") and _is_module(v)}
    if found:
        return found
    for key, obj in namespace.items():
        defined_here = isinstance(obj, type) and obj.__module__ == _LOADED
        if defined_here and _is_module_class(obj) and _builds_alone(obj):
            found[f"{key}()"] = obj()
    if not found:
        raise LookupError(
            "the file has no module object at its top level, and no Module class that builds "
            "without arguments: name one (ownership audit FILE.py NAME)"
        )
    return found


def _is_module_class(cls: type) -> bool:
    return callable(getattr(cls, "named_modules", None))


def _builds_alone(maker: Any) -> bool:
    """Whether ``maker`` (a class or a function) can be called without arguments."""
    try:
        inspect.signature(maker).bind()
    except TypeError:
        return False
    except ValueError:  # no signature to read: try the call
        return True
    return True


def _show_failure(error: Exception, path: Path, shown: Path) -> None:
    """The file's traceback without the command's and the interpreter's frames, then where it
    stopped."""
    here = os.path.abspath(__file__)
    te = traceback.TracebackException.from_exception(error)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if f.filename != here and not f.filename.startswith("<frozen ")]
    )
    sys.stderr.write("".join(te.format()))
    lines = [f.lineno for f in te.stack if f.filename == str(path)]
    if not lines and isinstance(error, SyntaxError) and error.filename == str(path):
        lines = [error.lineno]
    at = f" at line {lines[-1]}" if lines and lines[-1] else ""
    print(f"audit: {shown} stopped{at}: nothing was audited")


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Who may mutate each tensor a module holds: parameters, buffers, plain "
        "tensor attributes, and the unit's ownership mistakes flagged.",
        epilog="exit status: 0; 1 when the file raised while loading, or under --strict when "
        "a table has a flag; 2 a usage error.",
    )
    parser.add_argument("file", type=Path, help="the Python file that defines the module")
    parser.add_argument(
        "name",
        nargs="?",
        help="a module object of the file, or a class or function that builds one (default: "
        "every module object at its top level, else every Module class it defines)",
    )
    parser.add_argument("--json", action="store_true", help="print the tables as JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a tensor is flagged")
    return parser


def main(argv: list[str] | None = None, prog: str = "ownership audit") -> int:
    """Run the command line; return the exit status."""
    parser = _parser(prog)
    args = parser.parse_args(argv)
    path = args.file.resolve()
    if not path.is_file():
        parser.error(f"no such file: {args.file}")
    try:
        modules = modules_of(_load(path), args.name)
    except LookupError as error:
        parser.error(f"{args.file}: {error}")
    except Exception as error:  # the file's own failure: shown as Python shows it
        _show_failure(error, path, args.file)
        return 1
    tables: dict[str, AuditTable] = {key: audit(m) for key, m in modules.items()}
    if args.json:
        doc = [
            {
                "name": key,
                "class": type(modules[key]).__name__,
                "rows": [asdict(row) for row in table],
                "flags": [asdict(flag) for flag in table.flags],
            }
            for key, table in tables.items()
        ]
        print(json.dumps(doc, indent=2))
    else:
        print(
            "\n\n".join(
                f"{key} ({type(modules[key]).__name__})\n{table}" for key, table in tables.items()
            )
        )
    flagged = any(table.flags for table in tables.values())
    return 1 if args.strict and flagged else 0


if __name__ == "__main__":
    sys.exit(main())
