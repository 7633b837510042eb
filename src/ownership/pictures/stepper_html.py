"""The HTML of a :class:`~.stepper.Stepper`: static markup that the site's ``stepper.js`` drives.

Without the script the first frame shows and the buttons do nothing; nothing is loaded from
anywhere. The markup the script relies on (its only contract):

- ``div.ownership-stepper[data-pause]``: the root (a named, focusable group; ←/→ step in it);
- ``button.stepper-prev`` / ``button.stepper-next``, and ``p.stepper-status[aria-live]`` where
  each step is announced (the text of the frame's ``data-status``);
- ``span.stepper-line[data-line]``: one per source line;
- ``div.stepper-frame[data-first][data-last][data-status]``: one per frame, all but the first
  ``hidden``;
- ``div.stepper-predict`` with ``button.stepper-reveal``: shown instead of the paused frame.
"""

from __future__ import annotations

import hashlib
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ownership.pictures.stepper import Frame, Stepper


def _attr(s: str) -> str:
    return escape(s, quote=True)


def _frame(stepper: Stepper, frame: Frame) -> str:
    memory, graph = stepper.svgs(frame)
    hidden = " hidden" if frame.index else ""
    parts = [
        f'<div class="stepper-frame" data-frame="{frame.index}" data-first="{frame.first}"'
        f' data-last="{frame.last}" data-status="{_attr(stepper.status(frame))}"{hidden}>',
        '<p class="stepper-heading">Tensors over their storage</p>',
        f'<div class="stepper-scroll">{memory}</div>',
    ]
    if graph is not None:
        parts += [
            '<p class="stepper-heading">Autograd graph</p>',
            f'<div class="stepper-scroll ownership-graph">{graph}</div>',
        ]
    if frame.printed:
        parts.append(f'<pre class="stepper-printed">{escape(frame.printed)}</pre>')
    if frame.raised is not None:
        parts.append(
            f'<pre class="stepper-raised">{escape(frame.raised.kind)}: '
            f"{escape(frame.raised.message)}</pre>"
        )
    parts.append("</div>")
    return "\n".join(parts)


def stepper_html(stepper: Stepper) -> str:
    """The stepper's markup (see the module's docstring)."""
    uid = hashlib.sha1(stepper.source.encode()).hexdigest()[:8]
    code = "".join(
        f'<span class="stepper-line" data-line="{i}"><span class="stepper-ln"'
        f' aria-hidden="true">{i:>2} </span>{escape(line)}\n</span>'
        for i, line in enumerate(stepper.source.rstrip("\n").splitlines(), start=1)
    )
    pause = stepper.pause if stepper.pause is not None else -1
    predict = ""
    if stepper.pause is not None:
        at = stepper.frames[stepper.pause]
        question = stepper.question or "What changes on the right when it runs?"
        line = f"Line {at.first} is next: {stepper.code_of(at)}. {question}"
        said = f"Predict the next frame. {line} Then press Reveal."
        predict = (
            f'<div class="stepper-predict" data-status="{_attr(said)}" hidden>'
            f"<p><strong>Predict the next frame.</strong> Line {at.first} is next:"
            f" <code>{escape(stepper.code_of(at))}</code>. {escape(question)}</p>"
            f'<button type="button" class="stepper-reveal">Reveal the state after line'
            f" {at.first}</button></div>"
        )
    return "\n".join(
        [
            f'<div class="ownership-stepper" id="stepper-{uid}" data-pause="{pause}"'
            f' role="group" tabindex="0" aria-label="{_attr("Step through " + stepper.title)}">',
            '<div class="stepper-controls">',
            '<button type="button" class="stepper-prev" aria-label="Previous step">← Back</button>',
            '<button type="button" class="stepper-next" aria-label="Next step">Next →</button>',
            f'<p class="stepper-status" aria-live="polite" aria-atomic="true">'
            f"{escape(stepper.status(stepper.frames[0]))}</p>",
            "</div>",
            '<div class="stepper-body">',
            f'<pre class="stepper-code"><code>{code}</code></pre>',
            '<div class="stepper-frames">',
            *(_frame(stepper, f) for f in stepper.frames),
            predict,
            "</div>",
            "</div>",
            '<p class="stepper-keys">Keys: ← and → step when the stepper has the focus.</p>',
            "</div>",
        ]
    )
