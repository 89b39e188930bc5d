"""The engine's one public surface: outside ``superfluid.engine`` nothing imports below it (docs/architecture.md),
nothing reaches into a served model's parts, and everything the surface lists is there."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

import superfluid
import superfluid.engine as engine

PACKAGE = Path(superfluid.__file__).parent
ENGINE = PACKAGE / "engine"


def _imports_below_engine(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        found += [f"{path.relative_to(PACKAGE)}:{node.lineno} {m}" for m in modules
                  if m.startswith("superfluid.engine.")]
    return found


def test_nothing_outside_the_engine_imports_below_its_surface() -> None:
    outside = [p for p in PACKAGE.rglob("*.py") if ENGINE not in p.parents]
    assert len(outside) > 50  # the walk found the handlers, http, cli, state, fleet ...
    offenders = [hit for path in outside for hit in _imports_below_engine(path)]
    assert offenders == [], "import these from superfluid.engine (add them to its __all__ if missing)"


def test_the_surface_lists_what_it_exports() -> None:
    assert len(engine.__all__) == len(set(engine.__all__))
    missing = [name for name in engine.__all__ if not hasattr(engine, name)]
    assert missing == []
    # Every public name the module binds is listed, so nothing is exported by accident.
    # (Its subpackages are bound as attributes too, as any package's are once imported.)
    bound = {name for name, value in vars(engine).items() if not name.startswith("_")
             and not isinstance(value, ModuleType)}
    assert bound == set(engine.__all__)


def test_the_surface_lists_only_what_the_rest_uses() -> None:
    """A name on the surface is imported by some module outside the engine: what only the engine's own modules
    (or tests) need stays below it."""
    used: set[str] = set()
    for path in (p for p in PACKAGE.rglob("*.py") if ENGINE not in p.parents):
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "superfluid.engine":
                used |= {alias.name for alias in node.names}
    assert sorted(set(engine.__all__) - used) == []


def _self_attributes(cls_name: str, module: Path) -> set[str]:
    """The attributes ``cls_name``'s methods set on ``self``."""
    tree = ast.parse(module.read_text("utf-8"))
    parts: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls_name:
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store)
                        and isinstance(sub.value, ast.Name) and sub.value.id == "self"):
                    parts.add(sub.attr)
    return parts


def test_nothing_outside_the_engine_reaches_into_a_served_model() -> None:
    """Handlers and the rest use what ServedModel's methods offer: none reads its parts (``served._scheduler``),
    which is where the surface would leak through an attribute rather than an import."""
    attributes = _self_attributes("ServedModel", ENGINE / "models" / "served_model.py")
    parts = {name for name in attributes if name.startswith("_")}
    assert {"_llama", "_scheduler", "_lora", "_kv_disk"} <= parts
    assert not attributes & {"llama", "scheduler", "lora", "kv_disk"}, "ServedModel's parts stay private"
    offenders = []
    for path in (p for p in PACKAGE.rglob("*.py") if ENGINE not in p.parents):
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if (isinstance(node, ast.Attribute) and node.attr in parts
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
            # ... nor by name: getattr(served, "scheduler") once read the lanes for /metrics
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                    and str(node.args[1].value).lstrip("_") in {name.lstrip("_") for name in parts}):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} getattr {node.args[1].value!r}")
    assert offenders == []
