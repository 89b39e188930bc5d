"""The engine's one public surface: outside ``superfluid.engine`` nothing imports below it (the project's shared
conventions, "One public surface", kept beside the checkout in ../shared/CONVENTIONS.md; docs/architecture.md
says the same), and everything the surface lists is there."""

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
