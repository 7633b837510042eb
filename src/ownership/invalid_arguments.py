"""torch's wording when no overload fits: ``format_invalid_args`` of its ``invalid_arguments.cpp``.

When several signatures of a function are plausible (or the only one names other keywords),
torch's parser gives up and prints every overload, each followed by why it did not match. The
formatter re-reads the *printed* signatures, so its notion of a match is looser than the parser's:
a type matches by name only (``float`` also takes ``int``), ``*`` counts as an argument and
``bool keepdim = False`` reads as a type ``bool keepdim =`` that nothing matches. These quirks
are torch's and are kept, so that the engine's messages are torch's to the character.

A signature here is anything with ``printed`` (its text) and ``shown`` (the (type, name) pairs
the formatter reads from it); see :class:`ownership.overload.Signature`.

>>> from ownership.overload import Signature
>>> overloads = [Signature("max", "()"), Signature("max", "(int dim, bool keepdim = False)")]
>>> print(invalid_combination("max", overloads, (0.5,), {}))
max() received an invalid combination of arguments - got (float), but expected one of:
 * ()
      didn't match because some of the arguments have invalid types: (...float...)
 * (int dim, bool keepdim = False)
<BLANKLINE>
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ownership.keyword_order import torch_order
from ownership.ops.type_names import tp_name


def _arg_desc(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [tp_name(a) for a in args]
    text = "(" + "".join(f"{p}, " for p in parts)
    text += "".join(f"{k}={tp_name(v)}, " for k, v in kwargs.items())
    if args:
        text = text[:-2]
    return text + ")"


def _looks_like(type_name: str, obj: Any) -> bool:
    """The looser match torch's error formatter marks with ``!...!``: by type name only."""
    name = tp_name(obj)
    if type_name == "float":
        return name in ("float", "int")
    return name == type_name


def _marked(sig: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    tty = os.isatty(1) and os.isatty(2)
    red, end_red = ("\33[31;1m", "\33[0m") if tty else ("!", "!")
    green, end_green = ("\33[32;1m", "\33[0m") if tty else ("", "")
    given = [(None, a) for a in args] + list(kwargs.items())
    parts = []
    for i, (key, obj) in enumerate(given):
        ok = i < len(sig.shown) and _looks_like(sig.shown[i][0], obj)
        if isinstance(obj, tuple | list):
            inner = ", ".join(tp_name(o) for o in obj)
            if isinstance(obj, tuple):
                desc = f"tuple of ({inner}{',' if len(obj) == 1 else ''})"
            else:
                desc = f"list of [{inner}]"
        else:
            desc = tp_name(obj)
        label = f"{key}={desc}" if key is not None else desc
        parts.append(f"{green}{label}{end_green}" if ok else f"{red}{label}{end_red}")
    text = "(" + "".join(f"{p}, " for p in parts)
    if args:
        text = text[:-2]
    return text + ")"


def _unmatched_keywords(sig: Any, kwargs: dict[str, Any]) -> list[str]:
    """torch's ``_tryMatchKwargs``: keywords not among the signature's last ``len(kwargs)`` names."""
    start = max(len(sig.shown) - len(kwargs), 0)
    late = {name for _, name in sig.shown[start:]}
    return [k for k in kwargs if k not in late]


def invalid_combination(
    name: str, signatures: Sequence[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> str:
    """torch's "received an invalid combination of arguments" message for this call (the
    keywords in the order torch's formatter lists them: :mod:`ownership.keyword_order`)."""
    kwargs = {k: kwargs[k] for k in torch_order(kwargs)}
    head = f"{name}() received an invalid combination of arguments - "
    if len(signatures) == 1:
        sig = signatures[0]
        wrong = _unmatched_keywords(sig, kwargs)
        if wrong:
            return f"{head}got unrecognized keyword arguments: {', '.join(wrong)}"
        if len(args) + len(kwargs) == len(sig.shown):
            got = _marked(sig, args, kwargs)
        else:
            got = _arg_desc(args, kwargs)
        return f"{head}got {got}, but expected {sig.printed}"
    text = f"{head}got {_arg_desc(args, kwargs)}, but expected one of:\n"
    for sig in signatures:
        text += f" * {sig.printed}\n"
        if len(args) + len(kwargs) != len(sig.shown):
            continue
        wrong = _unmatched_keywords(sig, kwargs)
        if wrong:
            text += "      didn't match because some of the keywords were incorrect: "
            text += ", ".join(wrong) + "\n"
        else:
            text += "      didn't match because some of the arguments have invalid types: "
            text += _marked(sig, args, kwargs) + "\n"
    return text
