"""Memory pictures and training curves: read from live tensors of both engines, legible SVG."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from types import ModuleType
from typing import Any

import pytest
import torch

import ownership
from ownership.pictures import counter_groups_, draw_counters, draw_curves, read_views

SVG = "{http://www.w3.org/2000/svg}"
ENGINES = [pytest.param(torch, id="torch"), pytest.param(ownership, id="ownership")]


def scene(e: ModuleType) -> dict[str, Any]:
    """Study 1's five names over one storage, after one write through each."""
    base = e.zeros(4)
    view, detached, data, copy = base[1:3], base.detach(), base.data, base.clone()
    base.add_(1)
    view.mul_(2)
    detached.sub_(1)
    data.add_(5)
    copy.add_(1)
    return {"base": base, "view": view, "detached": detached, "data": data, "clone": copy}


def _texts(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return list(root.iter(SVG + "text"))


@pytest.mark.parametrize("engine", ENGINES)
def test_counter_groups_are_measured(engine: ModuleType) -> None:
    names = scene(engine)
    assert counter_groups_(names) == [["base", "view", "detached"], ["data"], ["clone"]]
    # one write per counter: each counter moved once
    assert [t._version for t in names.values()] == [4, 4, 4, 2, 2]
    assert names["base"].tolist() == [5.0, 6.0, 6.0, 5.0]  # the probe wrote the same values


@pytest.mark.parametrize("engine", ENGINES)
def test_memory_picture_reads_before_probing(engine: ModuleType) -> None:
    names = scene(engine)
    pic = draw_counters(read_views(names), counter_groups_(names), title="five names")
    versions = {t.name: t.version for t in pic.tensors}
    assert versions == {"base": 3, "view": 3, "detached": 3, "data": 1, "clone": 1}
    assert [pic.counter_of(n) for n in names] == ["A", "A", "A", "B", "C"]
    elements = {t.name: t.elements for t in pic.tensors}
    assert elements["view"] == (1, 2) and elements["base"] == (0, 1, 2, 3)
    storages = {t.name: t.storage for t in pic.tensors}
    assert storages["data"] == storages["base"] != storages["clone"]
    shown = [t.text for t in _texts(pic.svg)]
    assert "A v3" in shown and "B v1" in shown and "C v1" in shown
    assert shown.count("storage 1 · float32 · values") == 1


def test_memory_picture_is_the_same_in_both_engines() -> None:
    pics = [
        draw_counters(read_views(s), counter_groups_(s)) for s in map(scene, (torch, ownership))
    ]
    assert pics[0].svg == pics[1].svg


def test_strided_views_see_their_elements() -> None:
    m = torch.arange(6.0).reshape(2, 3)
    names = {"m": m, "column": m[:, 1], "t": m.t()}
    read = {t.name: t.elements for t in read_views(names)}
    assert read == {"m": (0, 1, 2, 3, 4, 5), "column": (1, 4), "t": (0, 3, 1, 4, 2, 5)}


def test_counters_must_group_each_name_once() -> None:
    names = scene(torch)
    with pytest.raises(ValueError, match="each name once"):
        draw_counters(names, [["base", "view"], ["data"]])
    with pytest.raises(TypeError, match="expects tensors"):
        read_views({"n": 3})


def _legible(svg: str) -> None:
    """Text at 11 px or more, drawn in the page's colour; no opaque ground behind the picture."""
    for text in _texts(svg):
        assert int(text.get("font-size", "0")) >= 11, text.text
        assert text.get("fill") == "currentColor", text.text
    root = ET.fromstring(svg)
    width = float(root.get("width", "0"))
    assert 0 < width <= 340, "wider than a phone's column"
    assert "max-width:none" in root.get("style", "")  # scrolls rather than shrinks
    fills = [r.get("fill", "").lower() for r in root.iter(SVG + "rect")]
    assert not {"#fff", "#ffffff", "white"} & set(fills)


def test_memory_picture_is_legible_in_both_themes_and_on_a_phone() -> None:
    names = scene(torch)
    _legible(draw_counters(read_views(names), counter_groups_(names)).svg)


CURVES = {
    "reference": {"loss": [0.7, 0.5, 0.3], "moved": [0.1, 0.2, 0.3]},
    "detach": {"loss": [0.7, 0.65, 0.6], "moved": [0.0, 0.0, 0.0]},
}


def test_curves_draw_one_line_per_run_and_panel() -> None:
    pic = draw_curves(CURVES, [("loss", "loss", True), ("moved", "moved", True)])
    assert len(pic.panels) == 2
    for panel in pic.panels:
        _legible(panel)
        assert panel.count("<polyline") == 2
    _legible(pic.legend)
    assert [t.text for t in _texts(pic.legend)] == ["reference", "detach"]
    html = pic._repr_html_()
    assert html.count("<svg") == 3 and "flex-wrap:wrap" in html


def test_a_log_axis_draws_zero_a_decade_below_the_data() -> None:
    panel = draw_curves(CURVES, [("moved", "moved", True)]).panels[0]
    labels = [t.text for t in _texts(panel)]
    assert "0" in labels and "0.1" in labels  # 0.1 .. 1 is the data, 0.01 stands for 0
    ys = [float(y) for y in re.findall(r",([\d.]+)", panel.split("<polyline")[2].split('"')[1])]
    assert len(set(ys)) == 1  # the detach run lies flat, on the floor
