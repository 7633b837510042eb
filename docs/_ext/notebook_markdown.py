"""MyST's directives in a page's Markdown, rewritten as plain Markdown a notebook can show.

A downloaded notebook is read in Jupyter, which knows no MyST directive. :func:`plain_markdown`
rewrites each one the way Jupyter can show it:

- ``{dropdown}`` becomes ``<details><summary>…</summary> … </details>``: folded in Jupyter too,
  so an answer stays hidden until it is asked for;
- ``{admonition}`` (and ``{note}``, ``{tip}``, ``{warning}``, ``{important}``, ``{seealso}``)
  becomes a blockquote with the title in bold;
- ``{literalinclude}`` becomes a code block with the included text (``:pyobject:`` picks one
  function or class of a Python file), read from the page's folder; ``{learner-script}`` a code
  block with the script as the page shows it (:mod:`learner_scripts`);
- ``{doctest}`` becomes a ``pycon`` code block (a hidden one, ``:hide:``, goes); ``{code-block}`` a code block of its language;
- any other directive keeps its content as plain text.

>>> print(plain_markdown(":::{dropdown} Answer\\nIt raises.\\n:::"))
<details><summary>Answer</summary>
<BLANKLINE>
It raises.
<BLANKLINE>
</details>
>>> print(plain_markdown("```{admonition} Key takeaways\\n:class: key-takeaways\\n\\n- one\\n```"))
> **Key takeaways**
>
> - one
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from learner_scripts import learner_copy

__all__ = ["included_text", "plain_markdown"]

_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<arg>.*)$")
_CODE = re.compile(r"^(?P<fence>`{3,})(?P<lang>[\w+-]*)[ \t]*$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")
ADMONITIONS = {"admonition", "note", "tip", "warning", "important", "seealso", "hint"}


def included_text(path: Path, options: dict[str, str]) -> str:
    """The text a ``{literalinclude}`` shows: the file, or its ``:pyobject:`` alone."""
    text = path.read_text(encoding="utf-8")
    name = options.get("pyobject")
    if not name:
        return text.rstrip("\n")
    lines = text.splitlines()
    for node in ast.parse(text).body:
        named = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if named and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return "\n".join(lines[first - 1 : node.end_lineno])
    raise ValueError(f"{path.name} has no function or class {name!r}")


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and set(stripped) == {fence[0]} and len(stripped) >= len(fence)


def _split_options(body: list[str]) -> tuple[dict[str, str], list[str]]:
    options: dict[str, str] = {}
    while body and _OPTION.match(body[0]):
        match = _OPTION.match(body[0])
        assert match is not None
        options[match["key"]] = match["value"]
        body = body[1:]
    while body and not body[0].strip():
        body = body[1:]
    return options, body


def _rewrite(name: str, arg: str, body: list[str], folder: Path | None) -> list[str]:
    options, content = _split_options(body)
    inner = plain_markdown("\n".join(content), folder).splitlines() if content else []
    if name == "dropdown":
        return [f"<details><summary>{arg}</summary>", "", *inner, "", "</details>"]
    if name in ADMONITIONS:
        title = arg or name.capitalize()
        return [f"> **{title}**", ">", *[f"> {line}" if line else ">" for line in inner]]
    if name == "literalinclude":
        if folder is None:
            raise ValueError("a literalinclude needs the page's folder")
        text = included_text(folder / arg, options)
        return [f"```{options.get('language', '')}", text, "```"]
    if name == "learner-script":
        return ["```python", learner_copy(arg).rstrip("\n"), "```"]
    if name == "doctest":  # a hidden one (``:hide:``) is the site's check, not the reader's
        return [] if "hide" in options else ["```pycon", *content, "```"]
    if name == "code-block":
        return [f"```{arg}", *content, "```"]
    return inner


def plain_markdown(source: str, folder: Path | None = None) -> str:
    """``source`` (a page's Markdown) with every MyST directive rewritten for Jupyter."""
    lines = source.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        opened, code = _OPEN.match(lines[i]), _CODE.match(lines[i])
        if opened is None and code is None:
            out.append(lines[i])
            i += 1
            continue
        fence = (opened or code)["fence"]  # type: ignore[index]
        j, depth = i + 1, 0
        while j < len(lines):  # the closing fence, past nested blocks of the same fence
            if _closes(lines[j], fence) and depth == 0:
                break
            inner_open = _OPEN.match(lines[j]) or _CODE.match(lines[j])
            if (
                inner_open
                and inner_open["fence"] == fence
                and (_OPEN.match(lines[j]) or inner_open["lang"])
            ):
                depth += 1
            elif _closes(lines[j], fence):
                depth -= 1
            j += 1
        body = lines[i + 1 : j]
        if opened is None:  # a plain code block: kept as it is
            out += lines[i : j + 1]
        else:
            out += _rewrite(opened["name"], opened["arg"].strip(), body, folder)
        i = j + 1
    return "\n".join(out)
