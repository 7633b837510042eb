"""Lighter API signatures: the same text and look, in fewer elements.

Sphinx writes each token of a Python signature as two nested spans, ``<span class="n"><span
class="pre">x</span></span>``: the outer one names the token's kind (``n``, ``p``, ``o``, ``w``),
which no style of the site reads in a Python signature, the inner one keeps the token on one line
(``span.pre``: ``white-space: nowrap``). The reference pages are mostly signatures: ``api.html``
had 22,000 elements, 15,500 of them spans, and the browser's checks of a page (axe-core's contrast
rule above all) take time by the element.

In a Python signature this translator writes a token's text bare: no kind span, no ``pre`` span.
The text is the same, a line still breaks only at a space (a token has none, and the spaces
between tokens are where Sphinx allowed breaks), and every span a style reads is kept: the name
(``sig-name``), the module (``sig-prename``), the parentheses, the return arrow and type, a
default value, the ``[source]`` link. Signatures of other domains, and inline code elsewhere, are
written as Sphinx writes them.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.writers.html5 import HTML5Translator


class LightSignatureTranslator(HTML5Translator):
    """Sphinx's HTML translator, writing Python signatures' tokens without their two spans."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_py_signature = 0

    def visit_desc_signature(self, node: nodes.Element) -> None:
        super().visit_desc_signature(node)
        if node.parent.get("domain") == "py":
            self.in_py_signature += 1

    def depart_desc_signature(self, node: nodes.Element) -> None:
        if node.parent.get("domain") == "py":
            self.in_py_signature -= 1
        super().depart_desc_signature(node)

    def _bare(self, node: nodes.Element) -> bool:
        return self.in_py_signature > 0 and not node.get("ids")

    def visit_desc_sig_element(self, node: nodes.Element) -> None:
        if not self._bare(node):
            self.visit_inline(node)

    def depart_desc_sig_element(self, node: nodes.Element) -> None:
        if not self._bare(node):
            self.depart_inline(node)

    def visit_Text(self, node: nodes.Text) -> None:
        if not self.in_py_signature:
            super().visit_Text(node)
            return
        for token in self.words_and_spaces.findall(self.encode(node.astext())):
            if token.strip() or token in {" ", "\n"}:
                self.body.append(token)
            else:  # a run of spaces: as Sphinx keeps it, the last one can wrap
                self.body.append("&#160;" * (len(token) - 1) + " ")


def setup(app: Sphinx) -> dict[str, Any]:
    app.set_translator("html", LightSignatureTranslator)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
