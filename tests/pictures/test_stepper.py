"""The stepper: its frames are the engines' real state after each line, and its markup works.

Each frame is checked against the program run again by hand under torch, stopped after the same
line: version counters, which tensors share memory, the saved tensor's version at save time and
now (red once they differ), the detach cut, ``.grad`` as it accumulates, a module's parameters,
buffers and ``state_dict`` entries. The two engines must agree on every frame.
"""

from __future__ import annotations

import contextlib
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
import torch

import ownership
from ownership.pictures.stepper import Frame, Stepper, step_through

ENGINES = {"torch": torch, "ownership": ownership}
SVG = "{http://www.w3.org/2000/svg}"

ALIASES = """\
base = torch.zeros(4)
view = base[1:3]
detached = base.detach()
data = base.data
copy = base.clone()
base.add_(1)
view.mul_(2)
data.add_(5)
"""

SIGMOID = """\
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
h = x.sigmoid()
h.mul_(2)
h.sum().backward()
"""

DETACH_TWICE = """\
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
y.sum().backward()
"""

MODULE = """\
bn = nn.BatchNorm1d(2)
sd = bn.state_dict()
opt = torch.optim.SGD(bn.parameters(), lr=0.1)
out = bn(torch.tensor([[1.0, 10.0], [3.0, 14.0]]))
out[0].sum().backward()
opt.step()
"""


def by_hand(source: str, upto: int) -> dict[str, Any]:
    """The program's namespace under torch after its first ``upto`` lines (one statement each)."""
    namespace: dict[str, Any] = {"torch": torch, "nn": torch.nn}
    torch.manual_seed(0)
    for line in source.splitlines()[:upto]:
        with contextlib.suppress(RuntimeError):  # the last line of a program may raise
            exec(line, namespace)
    return namespace


def stepped(source: str, pause: int | None = None) -> Stepper:
    return step_through(source, ENGINES, pause=pause, title="test")


def test_versions_and_shared_storage_are_the_engines_own() -> None:
    stepper = stepped(ALIASES)
    assert len(stepper.frames) == 9 and stepper.frames[0].memory == []
    for frame in stepper.frames[1:]:
        real = by_hand(ALIASES, frame.index)
        tensors = frame.tensors()
        assert set(tensors) == {k for k, v in real.items() if isinstance(v, torch.Tensor)}
        for name, state in tensors.items():
            assert state.version == real[name]._version, (frame.index, name)
        for storage in frame.memory:  # one storage per block of memory, shared by its viewers
            ptrs = {real[t.name].untyped_storage().data_ptr() for t in storage.tensors}
            assert len(ptrs) == 1
    last = stepper.frames[-1]
    groups = [[t.name for t in s.tensors] for s in last.memory]
    assert groups == [["base", "view", "detached", "data"], ["copy"]]
    assert last.tensors()["view"].cells == (1, 2)
    assert last.tensors()["base"].cells == (0, 1, 2, 3)
    assert last.memory[0].values == ("6", "7", "7", "6")  # base + 1, the view * 2, data + 5
    assert [float(v) for v in last.memory[0].values] == by_hand(ALIASES, 8)["base"].tolist()
    versions = [last.tensors()[n].version for n in ("base", "view", "detached", "data", "copy")]
    assert versions == [2, 2, 2, 1, 0]  # one counter for base, view, detached; .data has its own


def test_a_saved_tensor_turns_red_once_its_version_moves() -> None:
    stepper = stepped(SIGMOID, pause=3)
    saved, written, failed = stepper.frames[2], stepper.frames[3], stepper.frames[4]
    (mark,) = saved.tensors()["h"].saved
    assert (mark.node, mark.slot, mark.saved_version, mark.stale) == (
        "SigmoidBackward0",
        "result",
        0,
        False,
    )
    (mark,) = written.tensors()["h"].saved
    assert (mark.saved_version, mark.version, mark.stale) == (0, 1, True)
    assert mark.version == by_hand(SIGMOID, 3)["h"]._version
    memory, graph = stepper.svgs(written)
    assert graph is not None
    red = [t for t in _texts(memory) if t.get("class") == "stale"]
    assert [t.text for t in red] == ["saved by SigmoidBackward0 (result) @ v0, now v1 ✗"]
    assert all(t.get("fill") == "#c0392b" for t in red)
    assert "saved result = h @ v0, now v1 ✗" in [t.text for t in _texts(graph)]
    assert not [t for t in _texts(stepper.svgs(saved)[0]) if t.get("class") == "stale"]
    assert failed.raised is not None and failed.raised.kind == "RuntimeError"
    assert "is at version 1; expected version 0 instead" in failed.raised.message


def test_the_detach_cut_and_grad_accumulating_over_two_backward_calls() -> None:
    stepper = stepped(DETACH_TWICE, pause=6)
    detached = stepper.frames[3]
    assert detached.graph is not None
    cuts = [e for e in detached.graph.edges if e.kind == "cut"]
    assert [detached.graph.boxes[e.src].title for e in cuts] == ["u"]
    u, y = detached.tensors()["u"], detached.tensors()["y"]
    assert (u.version, u.requires_grad, u.grad_fn) == (0, False, None)
    shared = next(s for s in detached.memory if "y" in [t.name for t in s.tensors])
    assert [t.name for t in shared.tensors] == ["y", "u"]  # u is drawn over y's storage
    assert y.grad_fn == "MulBackward0"
    grads = [stepper.frames[i].tensors()["x"].grad for i in (4, 5, 6)]
    real = [by_hand(DETACH_TWICE, i)["x"].grad for i in (5, 6)]
    assert grads[0] is None
    assert grads[1:] == [f"[{', '.join(f'{v:.3g}' for v in g.tolist())}]" for g in real]
    assert grads[1:] == ["[1, 4, 9]", "[3, 8, 15]"]  # u = x², then u + 2x


def test_a_modules_parameters_buffers_and_state_dict() -> None:
    stepper = stepped(MODULE, pause=6)
    first = stepper.frames[2]
    roles = {n: t.role for n, t in first.tensors().items()}
    assert roles["bn.weight"] == roles["bn.bias"] == "parameter"
    assert roles["bn.running_mean"] == roles["bn.num_batches_tracked"] == "buffer"
    groups = [[t.name for t in s.tensors] for s in first.memory]
    assert ["bn.weight", "sd['weight']"] in groups  # the state_dict shares the parameter's memory
    assert ["bn.running_mean", "sd['running_mean']"] in groups
    before, after = stepper.frames[5].tensors(), stepper.frames[6].tensors()
    real = by_hand(MODULE, 6)
    for name in ("bn.weight", "sd['weight']", "bn.bias", "bn.running_mean"):
        assert after[name].version == eval(name, real)._version
    moved = {n for n in after if after[n].version != before[n].version}
    assert moved == {"bn.weight", "sd['weight']", "bn.bias", "sd['bias']"}


def test_the_random_state_is_given_back() -> None:
    torch.manual_seed(7)
    expected = torch.rand(3)
    torch.manual_seed(7)
    stepped("w = torch.rand(2)\n")
    assert torch.equal(torch.rand(3), expected)


def test_the_engines_must_agree() -> None:
    class Shifted:
        """ownership, except that every new tensor is one more than asked."""

        def __getattr__(self, name: str) -> Any:
            return getattr(ownership, name)

        def tensor(self, data: list[float], **kwargs: Any) -> Any:
            return ownership.tensor([v + 1 for v in data], **kwargs)

    with pytest.raises(AssertionError, match="the engines disagree"):
        step_through(SIGMOID, {"torch": torch, "shifted": Shifted()})


@pytest.mark.parametrize(
    ("source", "pause", "message"),
    [
        ("import torch\nx = torch.ones(1)\n", None, "imports nothing"),
        ("x = torch.ones(1)\nx.foo()\ny = 1\n", None, "raised before the end"),
        ("x = torch.ones(1)\n", 2, "pause must name a statement"),
    ],
)
def test_programs_it_refuses(source: str, pause: int | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        stepped(source, pause=pause)


def test_the_markup() -> None:
    stepper = stepped(SIGMOID, pause=3)
    html = stepper._repr_html_()
    frames = re.findall(r'<div class="stepper-frame"[^>]*>', html)
    assert len(frames) == 5
    assert [" hidden" in f for f in frames] == [False, True, True, True, True]
    assert 'data-pause="3"' in html and '<div class="stepper-predict"' in html
    assert 'class="stepper-reveal">Reveal the state after line 3<' in html
    assert 'aria-label="Previous step"' in html and 'aria-label="Next step"' in html
    assert 'aria-live="polite"' in html
    lines = re.findall(r'<span class="stepper-line" data-line="(\d+)">', html)
    assert lines == ["1", "2", "3", "4"]
    for frame in stepper.frames:  # every picture is well-formed, and no text is below 11 px
        for svg in filter(None, stepper.svgs(frame)):
            sizes = [float(t.get("font-size", "0")) for t in _texts(svg)]
            assert sizes and min(sizes) >= 11


def test_status_says_what_changed() -> None:
    stepper = stepped(SIGMOID, pause=3)
    said = stepper.status(stepper.frames[3])
    assert said.startswith("Step 3 of 4, line 3: h.mul_(2).")
    assert "h: version 0 → 1" in said and "now v1 ✗" in said


def _texts(svg: str) -> list[ET.Element]:
    return list(ET.fromstring(svg).iter(SVG + "text"))


def test_frame_lines_cover_the_picture() -> None:
    frame: Frame = stepped(SIGMOID).frames[2]
    text = "\n".join(frame.lines())
    assert "h · [3] · version 0" in text and "saved result = h @ v0" in text
    assert "storage 3 × float32: [0.5, 0.731, 0.881]" in text
