"""Graph pictures: drawn from live tensors of torch and of ownership, as well-formed SVG."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from types import ModuleType
from typing import Any

import pytest
import torch

import ownership
from ownership.pictures import GraphPicture, draw_graph
from ownership.pictures.placement import place

SVG = "{http://www.w3.org/2000/svg}"


def _engines() -> list[Any]:
    engines: list[Any] = [pytest.param(torch, id="torch")]
    ready = hasattr(ownership, "tensor")
    mark = pytest.mark.skipif(not ready, reason="the ownership engine is not built yet")
    engines.append(pytest.param(ownership, id="ownership", marks=mark))
    return engines


ENGINES = _engines()


def texts(pic: GraphPicture) -> list[str]:
    """Every <text> of the SVG, parsed with xml.etree (which also proves it is well-formed)."""
    root = ET.fromstring(pic.svg)
    assert root.tag == SVG + "svg"
    return [t.text or "" for t in root.iter(SVG + "text")]


def sigmoid_mul_(e: ModuleType) -> tuple[GraphPicture, dict[str, Any]]:
    """The unit's first trap: sigmoid saves its output, then mul_ modifies it."""
    x = e.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.sigmoid()
    z = x * y
    y.mul_(2)
    loss = z.sum()
    names = {"x": x, "y": y, "z": z, "loss": loss}
    return draw_graph(loss, names=names, title="sigmoid then mul_"), names


def detach_middle(e: ModuleType) -> tuple[GraphPicture, dict[str, Any]]:
    """The unit's second trap: z = x * u with u = y.detach() gives u, not 3x^2."""
    x = e.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x**3
    u = y.detach()
    z = x * u
    names = {"x": x, "y": y, "u": u, "z": z}
    return draw_graph(z.sum(), names=names, cuts=[u]), names


def views_and_matmul(e: ModuleType) -> tuple[GraphPicture, dict[str, Any]]:
    w = e.ones(3, 2, requires_grad=True)
    x = e.arange(6.0).view(2, 3)
    h = (x @ w).relu()
    loss = (h * h).t().sum()
    return draw_graph(loss, names={"w": w, "x": x, "h": h}), {}


def scalars_and_data(e: ModuleType, scalars: bool = False) -> tuple[GraphPicture, dict[str, Any]]:
    """The third trap's cousin: a write through .data is invisible to the version check."""
    x = e.tensor([1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    y.data.mul_(2)
    loss = (y * 3.0 + 1).sum()
    return draw_graph(loss, names={"x": x, "y": y}, scalars=scalars), {}


PROGRAMS = [sigmoid_mul_, detach_middle, views_and_matmul, scalars_and_data]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_svg_is_well_formed_and_names_every_node(engine: ModuleType, program: Any) -> None:
    pic, _ = program(engine)
    words = texts(pic)
    for name in pic.node_names:
        assert name in words
    assert "AccumulateGrad" in pic.node_names
    assert not any("::" in n for n in pic.node_names)
    assert pic._repr_svg_() == pic.svg
    assert pic.svg in pic._repr_html_()


@pytest.mark.parametrize("engine", ENGINES)
def test_saved_tensors_show_the_version_they_were_saved_at(engine: ModuleType) -> None:
    pic, _ = sigmoid_mul_(engine)
    words = texts(pic)
    assert "saved result = y @ v0, now v1 ✗" in words  # sigmoid saved its output y
    assert "saved other = y @ v0, now v1 ✗" in words  # mul saved y for x's gradient
    assert "saved self = x @ v0" in words
    assert {"SumBackward0", "MulBackward0", "SigmoidBackward0", "AccumulateGrad"} == set(
        pic.node_names
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_unmodified_saved_tensor_is_current(engine: ModuleType) -> None:
    x = engine.tensor([0.5, 1.5], requires_grad=True)
    y = x.exp()
    pic = draw_graph(y.sum(), names={"x": x, "y": y})
    assert "saved result = y @ v0" in texts(pic)


@pytest.mark.parametrize("engine", ENGINES)
def test_freed_saved_tensors_after_backward(engine: ModuleType, request: Any) -> None:
    x = engine.tensor([0.5, 1.5], requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    assert "saved self: freed by backward" in texts(draw_graph(loss))


@pytest.mark.parametrize("engine", ENGINES)
def test_detach_is_drawn_as_a_cut_edge(engine: ModuleType) -> None:
    pic, _ = detach_middle(engine)
    root = ET.fromstring(pic.svg)
    cut_paths = [p for p in root.iter(SVG + "path") if "cut" in p.get("class", "")]
    assert len(cut_paths) == 1
    assert cut_paths[0].get("stroke-dasharray")
    assert cut_paths[0].get("stroke") == "#c0392b"
    assert "detach (cut)" in texts(pic)
    [cut] = pic.cut_edges
    src, dst = pic.figure.boxes[cut.src], pic.figure.boxes[cut.dst]
    assert (src.title, src.kind) == ("u", "cut")
    assert dst.title == "PowBackward0"  # y's node: the graph the detach cut away
    assert "saved other = u @ v0" in texts(pic)


@pytest.mark.parametrize("engine", ENGINES)
def test_detached_loss_is_a_root_without_graph(engine: ModuleType) -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * 2).sum()
    dead = loss.detach()
    pic = draw_graph(dead, names={"loss": loss, "dead": dead}, cuts=[dead])
    assert [e.label for e in pic.cut_edges] == ["detach (cut)"]
    assert pic.figure.boxes[pic.cut_edges[0].dst].title == "SumBackward0"


def test_same_node_names_in_both_engines() -> None:
    if not hasattr(ownership, "tensor"):
        pytest.skip("the ownership engine is not built yet")
    for program in PROGRAMS:
        a, _ = program(torch)
        b, _ = program(ownership)
        assert sorted(a.node_names) == sorted(b.node_names), program.__name__
        assert sorted(a.lines()) == sorted(b.lines()), program.__name__


def test_svg_is_self_contained(tmp_path: Any) -> None:
    pic, _ = detach_middle(torch)
    other, _ = sigmoid_mul_(torch)
    body = pic.svg.replace('xmlns="http://www.w3.org/2000/svg"', "")
    for banned in ("http", "<script", "<style", "href", "@import", "<image"):
        assert banned not in body
    ids = {m.get("id") for m in ET.fromstring(pic.svg).iter(SVG + "marker")}
    other_ids = {m.get("id") for m in ET.fromstring(other.svg).iter(SVG + "marker")}
    assert ids and not ids & other_ids  # two pictures can share one HTML page
    path = pic.save(tmp_path / "g.svg")
    assert path.read_text(encoding="utf-8") == pic.svg


def test_boxes_do_not_overlap_and_edges_point_down() -> None:
    pic, _ = views_and_matmul(torch)
    boxes, _, width, height = place(pic.figure)
    rects = list(boxes.values())
    for i, a in enumerate(rects):
        assert a.x >= 0 and a.x + a.w <= width and a.y + a.h <= height
        for b in rects[i + 1 :]:
            apart = a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y
            assert apart
    for e in pic.figure.edges:
        assert boxes[e.src].y < boxes[e.dst].y


def test_deep_graph_draws_without_recursion() -> None:
    """A chain deeper than Python's recursion limit (only just: the layout's cost grows faster
    than the depth) is drawn whole."""
    depth = sys.getrecursionlimit() + 100
    x = torch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(depth):
        y = y * 1.0001
    pic = draw_graph(y.sum())
    assert pic.node_names.count("MulBackward0") == depth
    ET.fromstring(pic.svg)


def test_shared_input_edge_drawn_once() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    pic = draw_graph((x * x).sum(), names={"x": x})
    mul = next(k for k, b in pic.figure.boxes.items() if b.title == "MulBackward0")
    assert len([e for e in pic.figure.edges if e.src == mul]) == 1


def test_rejects_non_tensors() -> None:
    with pytest.raises(TypeError, match="expects tensors"):
        draw_graph([1, 2])


def test_notebooks_show_the_picture_inline() -> None:
    """Jupyter (and so MyST-NB) gets an SVG and an HTML form of the picture, no image file."""
    formatters = pytest.importorskip("IPython.core.formatters")
    pic, _ = sigmoid_mul_(torch)
    data, _ = formatters.format_display_data(pic)
    assert data["image/svg+xml"] == pic.svg
    assert data["text/html"].startswith('<div class="ownership-graph"')
    assert "GraphPicture(nodes=" in data["text/plain"]


@pytest.mark.parametrize("engine", ENGINES)
def test_data_write_is_not_seen_and_scalars_have_no_version(engine: ModuleType) -> None:
    pic, _ = scalars_and_data(engine, scalars=True)
    words = texts(pic)
    assert "saved result = y @ v0" in words  # .data wrote into y, yet the saved version is current
    assert "saved other = 3" in words  # a Python scalar: no version to check
    assert not any("@" in w for w in words if w.startswith("saved other"))
    assert not any(w.startswith("saved other") for w in texts(scalars_and_data(engine)[0]))
