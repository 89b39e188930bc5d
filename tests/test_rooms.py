"""Each room of the source imports only the rooms tests/rooms.py allows it (``python -m tests.rooms`` prints
what each imports); a new room has to be given its place there."""

from __future__ import annotations

from tests.rooms import ALLOWED, PACKAGE, imports, room_of


def test_every_room_has_a_place() -> None:
    rooms = {room_of(path) for path in PACKAGE.rglob("*.py")}
    assert rooms == set(ALLOWED)


def test_rooms_import_only_what_they_may() -> None:
    wrong = {f"{room} -> {other}: {sorted(files)}" for room, used in imports().items()
             for other, files in used.items() if other not in ALLOWED[room]}
    assert wrong == set()


def test_the_handlers_reach_the_services_through_their_request() -> None:
    """The three reaches the map once had: handlers importing the services module, the engine importing the
    state store, the conformance suite importing the engine (it drives the server from outside)."""
    graph = imports()
    assert "services" not in graph.get("handlers", {})
    assert "state" not in graph.get("engine", {})
    assert "engine" not in graph.get("conformance", {})
