"""The product package holds the product, and a wheel of it is the whole program.

Every module under ``voice_rang/`` is reached by an import from an entry point (the sub-commands
of ``voice_rang/cli``, loaded by name, and ``__main__``): a module only the benchmarks or the
training scripts use lives in ``benchmarks/`` or ``scripts/``. No module imports itself through
others. Every file the program reads at run time is package data, found through
:mod:`importlib.resources`; and a wheel built from this checkout, installed into a fresh virtual
environment elsewhere, plays a whole game and answers ``doctor``.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import shutil
import socket
import subprocess
import sys
import venv
from importlib import resources
from pathlib import Path

import pytest

from voice_rang.prompts import tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "voice_rang"


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in it (inside functions and
    ``TYPE_CHECKING`` blocks too: a cycle there is still a cycle in the design)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def known(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        found.update(module for target in targets if (module := known(target)) is not None)
    found.discard(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _entry_points(graph: dict[str, set[str]]) -> set[str]:
    """What is loaded by name rather than imported: each sub-command (``voice_rang.cli.<name>``,
    see ``voice_rang/cli/__init__.py``), ``python -m voice_rang``, and the packages themselves."""
    return {name for name in graph if name.startswith("voice_rang.cli.") or name.endswith("__main__")
            or (PACKAGE.parent / name.replace(".", "/") / "__init__.py").is_file()}


def test_every_module_of_the_package_is_imported_by_the_program() -> None:
    graph = _graph()
    reached: set[str] = set()
    waiting = list(_entry_points(graph))
    while waiting:
        name = waiting.pop()
        if name not in reached:
            reached.add(name)
            waiting.extend(graph.get(name, ()))
    unused = sorted(set(graph) - reached)
    assert not unused, (f"{', '.join(unused)}: nothing in voice_rang/ imports it; move what only benchmarks or "
                        "training use to benchmarks/ or scripts/, or delete it")


def test_no_module_imports_itself_through_others() -> None:
    graph = _graph()
    done: set[str] = set()

    def cycle_from(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return [*path[path.index(name):], name]
        if name in done:
            return None
        for other in sorted(graph[name]):
            found = cycle_from(other, [*path, name])
            if found:
                return found
        done.add(name)
        return None

    for name in sorted(graph):
        cycle = cycle_from(name, [])
        assert cycle is None, f"an import circle: {' -> '.join(cycle)}"


def test_the_analysis_sees_a_circle_and_a_module_nobody_imports() -> None:
    """The two checks above can fail: the import reader finds a relative import's target."""
    modules = _modules()
    assert "voice_rang.table.outputs" in _imports("voice_rang.table.table", modules["voice_rang.table.table"], modules)
    assert "voice_rang.cli.play" in _entry_points(_graph())


def test_every_file_the_program_reads_is_package_data_found_through_importlib_resources() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    patterns = setuptools["package-data"]["voice_rang"]
    data = [path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts]
    left_out = [name for name in data if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)]
    assert not left_out, f"files under voice_rang/ that a wheel would leave out: {left_out}"
    for package, name in (("voice_rang.prompts", "en.toml"), ("voice_rang.prompts", "bn.toml"),
                          ("voice_rang.net", "static/index.html"), ("voice_rang.listen", "models/command_head.npz")):
        assert resources.files(package).joinpath(name).is_file(), f"{package}: {name}"
    assert not (ROOT / "prompts").exists(), "the words live in voice_rang/prompts/, installed with the program"


def _index_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        return False
    return True


@pytest.mark.slow
def test_a_wheel_installed_elsewhere_plays_a_whole_text_game_and_answers_doctor(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="needs the test extra's build")
    if not _index_reachable():
        pytest.skip("PyPI (pypi.org:443) cannot be reached from here, so the wheel's dependencies cannot be "
                    "installed")
    source, dist = tmp_path / "source", tmp_path / "dist"
    # What the wheel is made of, away from the checkout: the build leaves nothing in it, and
    # nothing outside these can slip into the program.
    shutil.copytree(PACKAGE, source / "voice_rang", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist),
                            str(source)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheels = list(dist.glob("voice_rang-*.whl"))
    assert len(wheels) == 1, wheels
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    bin_dir = environment / ("Scripts" if os.name == "nt" else "bin")
    installed = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheels[0])],
                               capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr[-3000:]
    clean = {key: value for key, value in os.environ.items()
             if key not in ("PYTHONPATH", "VOICE_RANG_PROMPTS", "VIRTUAL_ENV")}
    program = str(bin_dir / "voice-rang")
    game = subprocess.run([program, "play", "--text", "--seats", "3", "--beat", "0"], input="auto-reveal on\n",
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=clean)
    assert game.returncode == 0, game.stdout[-2000:] + game.stderr[-2000:]
    assert "Game over" in game.stdout
    doctor = subprocess.run([program, "doctor"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                            env=clean)
    assert "Words load: " in doctor.stdout and "Not ready" not in doctor.stdout, doctor.stdout + doctor.stderr
    assert "Traceback" not in doctor.stdout + doctor.stderr and doctor.returncode in (0, 1)
    where = subprocess.run([str(bin_dir / "python"), "-c", "import voice_rang; print(voice_rang.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path, env=clean)
    assert Path(where.stdout.strip()).is_relative_to(environment), "the game ran from the checkout, not the wheel"
    shutil.rmtree(environment, ignore_errors=True)
