"""The rooms of superfluid's source and which rooms each imports: ``python -m tests.rooms`` prints the map
docs/architecture.md draws (each room, the rooms it imports, and from how many of its files), and
tests/test_rooms.py holds the code to what ALLOWED says a room may import.

A room is a package under src/superfluid (``engine``, ``handlers``, ``http`` ...) or a module at its top
(``cli``, ``flags``, ``settings`` ...). Imports are read from the source (``import`` and ``from ... import``,
including those inside functions and under ``TYPE_CHECKING``), so the map is what the code says, not what runs.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

import superfluid

PACKAGE = Path(superfluid.__file__).parent

# What each room may import besides itself. The engine is the bottom of the serving stack: it knows the
# settings, the error tree and nothing that speaks HTTP; handlers see the engine only through its surface
# (tests/test_engine_surface.py); only the entry points (cli, fleet, app) put the rooms together.
BASE = {"errors", "settings", "paths", "arguments", "config_files"}
ALLOWED: dict[str, set[str]] = {
    "__init__": set(),
    "errors": set(),
    "paths": set(),
    "arguments": set(),
    "config_files": set(),
    "settings": {"paths"},
    "engine": BASE,
    "state": BASE,
    "conformance": BASE,
    "http": BASE | {"engine", "state"},
    "batches": BASE | {"state", "http"},
    "web": BASE | {"state", "http", "batches"},
    "handlers": BASE | {"engine", "state", "http", "batches"},
    "services": BASE | {"engine", "state", "http", "batches"},
    "flags": BASE | {"engine", "http"},
    "launch": BASE | {"engine", "http", "flags"},
    "app": BASE | {"engine", "state", "http", "services", "handlers", "batches", "web"},
    "fleet": BASE | {"engine", "http", "app", "flags"},
    "cli": BASE | {"engine", "state", "http", "app", "flags", "web", "launch", "conformance", "fleet"},
}


def room_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def imports() -> dict[str, dict[str, set[str]]]:
    """room -> imported room -> the files of the room that import it."""
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(PACKAGE.rglob("*.py")):
        room = room_of(path)
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            names = ([node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                parts = name.split(".")
                if parts[0] == "superfluid" and len(parts) > 1 and parts[1] != room:
                    found[room][parts[1]].add(str(path.relative_to(PACKAGE)))
    return found


def main() -> int:
    graph = imports()
    for room in sorted(ALLOWED, key=lambda r: (len(ALLOWED[r]), r)):
        used = graph.get(room, {})
        listed = ", ".join(f"{other} ({len(files)})" for other, files in sorted(used.items())) or "nothing"
        print(f"{room:<13} imports {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
