"""``save``/``load``: tensors, state dicts, optimizer state dicts and checkpoint dicts, to a path
or a file object, in torch's zip format, so a file written by either engine loads in both; the
aliasing torch keeps (one storage per storage saved: views load as tensors over it, with their
offsets and strides, at version 1; a Parameter as a Parameter); ``weights_only`` (default True)
and its refusal of other globals, word for word; ``map_location='cpu'``."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

import ownership

from support.differential import same
from support.nn_models import mlp


class Note:
    """A user's class in a checkpoint: refused by ``weights_only=True``, built otherwise."""

    def __init__(self, text: str) -> None:
        self.text = text


def _storage_facts(loaded: dict[str, Any]) -> Any:
    """Which loaded tensors share a storage, and each one's offset, strides and version."""
    tensors = {k: v for k, v in loaded.items() if hasattr(v, "untyped_storage")}
    pointers = {k: v.untyped_storage().data_ptr() for k, v in tensors.items()}
    shared = sorted(
        (a, b) for a in pointers for b in pointers if a < b and pointers[a] == pointers[b]
    )
    layout = {
        k: (v.storage_offset(), v.stride(), v._version, v.is_leaf) for k, v in tensors.items()
    }
    return shared, layout


OBJECTS: dict[str, Callable[[Any], Any]] = {
    "a tensor": lambda t: t.arange(6.0).reshape(2, 3),
    "an int tensor": lambda t: t.tensor([[1, 2], [3, 4]]),
    "a float64 leaf that requires grad": lambda t: t.ones(3, dtype=t.float64, requires_grad=True),
    "a non-leaf": lambda t: t.ones(2, requires_grad=True) * 2,
    "a Parameter": lambda t: t.nn.Parameter(t.arange(3.0)),
    "a frozen Parameter": lambda t: t.nn.Parameter(t.arange(3.0), requires_grad=False),
    "a view and its base": lambda t: (lambda x: {"x": x, "col": x[:, 1], "t": x.t()})(
        t.arange(12.0).reshape(3, 4)
    ),
    "two slices of one storage": lambda t: (lambda x: [x[2:], x[:3]])(t.arange(5.0)),
    "a state dict": lambda t: mlp(t).state_dict(),
    "numbers, strings, dtypes and sizes": lambda t: {
        "epoch": 3,
        "loss": 0.25,
        "betas": (0.9, 0.99),
        "name": "run",
        "raw": b"ab",
        "none": None,
        "dtype": t.float64,
        "size": t.ones(2, 3).shape,
        "flags": {1, 2},
    },
}


def _roundtrip(t: Any, obj: Any, **load: Any) -> Any:
    f = io.BytesIO()
    t.save(obj, f)
    f.seek(0)
    return t.load(f, **load)


@pytest.mark.parametrize("name", OBJECTS)
def test_a_saved_object_loads_as_torchs(name: str) -> None:
    def program(t: Any) -> Any:
        loaded = _roundtrip(t, OBJECTS[name](t))
        as_dict = loaded if isinstance(loaded, dict) else {"it": loaded}
        if isinstance(loaded, list):
            as_dict = {str(i): v for i, v in enumerate(loaded)}
        return loaded, type(loaded).__name__, _storage_facts(as_dict)

    same(program)


def test_a_state_dict_keeps_its_metadata_and_loads_into_a_model() -> None:
    def program(t: Any) -> Any:
        saved = mlp(t, seed=1)
        loaded = _roundtrip(t, saved.state_dict())
        model = mlp(t, seed=2)
        result = model.load_state_dict(loaded)
        return loaded._metadata, str(result), model(t.ones(1, 3)), model[0].weight._version

    same(program)


def test_an_optimizer_checkpoint_resumes_as_torchs(tmp_path: Path) -> None:
    """The "Saving and loading models" recipe: a checkpoint dict to a path, training resumed."""

    def program(t: Any) -> Any:
        model = mlp(t)
        opt = t.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for _ in range(2):
            opt.zero_grad()
            model(t.ones(4, 3)).pow(2).mean().backward()
            opt.step()
        path = tmp_path / f"checkpoint-{t.__name__}.pt"
        t.save({"epoch": 2, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": opt.state_dict(), "loss": 0.5}, path)  # fmt: skip
        checkpoint = t.load(path, weights_only=True)
        resumed = mlp(t, seed=5)
        resumed_opt = t.optim.SGD(resumed.parameters(), lr=0.3)
        resumed.load_state_dict(checkpoint["model_state_dict"])
        resumed_opt.load_state_dict(checkpoint["optimizer_state_dict"])
        resumed_opt.zero_grad()
        resumed(t.ones(4, 3)).pow(2).mean().backward()
        resumed_opt.step()
        return checkpoint["epoch"], checkpoint["loss"], resumed_opt.state_dict(), resumed[0].weight

    same(program)


@pytest.mark.parametrize("where", ["a path", "a str path", "a file object"])
def test_a_path_or_a_file_object(tmp_path: Path, where: str) -> None:
    def program(t: Any) -> Any:
        x = t.arange(4.0)
        if where == "a file object":
            with open(tmp_path / f"f-{t.__name__}.pt", "wb") as f:
                t.save(x, f)
            with open(tmp_path / f"f-{t.__name__}.pt", "rb") as f:
                return t.load(f, map_location="cpu")
        path: Any = tmp_path / f"x-{t.__name__}.pt"
        t.save(x, str(path) if where == "a str path" else path)
        return t.load(str(path) if where == "a str path" else path, map_location="cpu")

    same(program)


def test_weights_only_refuses_a_users_class_in_torchs_words() -> None:
    same(lambda t: _roundtrip(t, {"note": Note("x")}))
    same(lambda t: _roundtrip(t, {"note": Note("x")}, weights_only=True))


def test_weights_only_false_or_a_safe_global_loads_a_users_class() -> None:
    def program(t: Any) -> Any:
        plain = _roundtrip(t, {"note": Note("x")}, weights_only=False)["note"].text
        with t.serialization.safe_globals([Note]):
            allowed = _roundtrip(t, {"note": Note("y")})["note"].text
        return plain, allowed

    same(program)


# ---------------------------------------------------------------- across engines
def _written_by(engine: Any, build: Callable[[Any], Any]) -> bytes:
    f = io.BytesIO()
    engine.save(build(engine), f)
    return f.getvalue()


@pytest.mark.parametrize("writer", [torch, ownership], ids=["torch", "ownership"])
@pytest.mark.parametrize("name", OBJECTS)
def test_a_file_written_by_either_engine_loads_the_same_in_both(writer: Any, name: str) -> None:
    data = _written_by(writer, OBJECTS[name])

    def program(t: Any) -> Any:
        loaded = t.load(io.BytesIO(data))
        as_dict = loaded if isinstance(loaded, dict) else {"it": loaded}
        if isinstance(loaded, list):
            as_dict = {str(i): v for i, v in enumerate(loaded)}
        return loaded, _storage_facts(as_dict)

    same(program)


def test_ownerships_file_has_torchs_records_and_alignment(tmp_path: Path) -> None:
    names = {}
    for engine in (torch, ownership):
        path = tmp_path / engine.__name__ / "model.pt"
        path.parent.mkdir()
        engine.save({"w": engine.ones(3), "b": engine.zeros(2)}, path)
        with zipfile.ZipFile(path) as archive:
            names[engine.__name__] = [i.filename for i in archive.infolist()]
            for info in archive.infolist():
                with archive.open(info) as record:
                    record.read(0)
                    start = info.header_offset + 30 + len(info.filename) + _local_extra(path, info)
                assert start % 64 == 0, info.filename
    assert names["ownership"] == names["torch"]


def _local_extra(path: Path, info: zipfile.ZipInfo) -> int:
    """The length of the extra field of a record's local header (bytes 28-29 of the header)."""
    with open(path, "rb") as f:
        f.seek(info.header_offset + 28)
        return int.from_bytes(f.read(2), "little")
