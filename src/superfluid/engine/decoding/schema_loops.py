"""Self-reference without a way out: JSON schemas that no finite JSON value can match because of a loop.

``{"$ref": "#"}``, a -> b -> a through ``$defs``, an object whose required property is the object itself, loops
through ``allOf`` or through every branch of an ``anyOf``: the grammar engine compiles them, and then the only
reply it allows is none at all (an empty, "successful" answer). A recursive schema with a base case (an optional
or nullable link, an ``anyOf`` branch that stops, an array that may be empty) is fine.

The check is the classic one for grammars: a schema is *productive* when some finite value matches it. Leaves
(scalars, ``true``, ``enum``/``const``) are productive; a schema needs all of its ``$ref``, ``allOf`` branches,
required properties and required items to be, and one branch of each ``anyOf``/``oneOf`` and one of its types.
The least fixed point is found with a worklist in time linear in the schema's size. When the root is not
productive and a loop among the unproductive schemas explains it, the loop is named; other unsatisfiable schemas
(``false``, an empty ``anyOf``) are left to the grammar engine, which reports them itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

_SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SUBSCHEMA_ONES = frozenset({"items", "additionalProperties", "additionalItems", "contains", "not", "if", "then",
                             "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems"})
_SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
MAX_LOOP_SHOWN = 8


class _Gate:
    """AND (every input productive) or OR (one input productive); a schema is an AND gate named by its pointer.
    An AND without inputs is true, an OR without inputs false."""

    __slots__ = ("any_of", "inputs", "parents", "pointer", "productive", "waiting")

    def __init__(self, any_of: bool, inputs: list[_Gate] | None = None, pointer: str | None = None) -> None:
        self.any_of = any_of
        self.pointer = pointer
        self.inputs: list[_Gate] = inputs if inputs is not None else []
        self.parents: list[_Gate] = []
        self.waiting = 0
        self.productive = False


def _pointer(base: str, *parts: str | int) -> str:
    out = base
    for part in parts:
        text = str(part)
        if "~" in text or "/" in text:
            text = text.replace("~", "~0").replace("/", "~1")
        out += "/" + text
    return out


def _walk(schema: Any, pointer: str = "#") -> Iterator[tuple[str, Any]]:
    """Every subschema (dicts and booleans) with its JSON pointer, iteratively."""
    stack = [(pointer, schema)]
    while stack:
        here, node = stack.pop()
        yield here, node
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
                stack.extend((_pointer(here, key, k), v) for k, v in value.items() if isinstance(v, (dict, bool)))
            elif key in _SUBSCHEMA_ONES and isinstance(value, (dict, bool)):
                stack.append((_pointer(here, key), value))
            elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
                stack.extend((_pointer(here, key, i), v) for i, v in enumerate(value) if isinstance(v, (dict, bool)))


def _ref_pointer(ref: Any) -> str | None:
    """A local reference ("#", "#/$defs/a") in pointer form; None for anything else (left to the engine)."""
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
        return None
    return unquote(ref)


class _Graph:
    def __init__(self, schema: Any) -> None:
        self.nodes: dict[str, _Gate] = {}
        self.values: dict[str, Any] = {}
        for pointer, node in _walk(schema):
            self.nodes[pointer] = _Gate(False, pointer=pointer)
            self.values[pointer] = node
        self.gates: list[_Gate] = list(self.nodes.values())
        for pointer, node in self.values.items():
            self._requirements(self.nodes[pointer], pointer, node)

    def _gate(self, any_of: bool, inputs: list[_Gate]) -> _Gate:
        gate = _Gate(any_of, inputs)
        self.gates.append(gate)
        return gate

    def _requirements(self, gate: _Gate, pointer: str, node: Any) -> None:
        """The inputs of a schema's AND gate; parts that are always productive are left out."""
        if node is False:
            gate.inputs.append(self._gate(True, []))
        if not isinstance(node, dict):
            return
        target = _ref_pointer(node.get("$ref"))
        if target is not None and target in self.nodes:
            gate.inputs.append(self.nodes[target])
        for i, _ in enumerate(node.get("allOf") or ()):
            child = self.nodes.get(_pointer(pointer, "allOf", i))
            if child is not None:
                gate.inputs.append(child)
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                pointers = (_pointer(pointer, key, i) for i in range(len(node[key])))
                branches = [self.nodes[p] for p in pointers if p in self.nodes]
                gate.inputs.append(self._gate(True, branches))
        types = self._types(pointer, node)
        if types is not None:
            gate.inputs.append(types)

    def _types(self, pointer: str, node: dict[str, Any]) -> _Gate | None:
        """One of the schema's types must be productive; None when one always is (no type named, a scalar type,
        or a literal value given)."""
        if "const" in node or "enum" in node:
            return None
        types = node.get("type")
        names = [types] if isinstance(types, str) else types if isinstance(types, list) else None
        if not names or any(name not in ("object", "array") for name in names):
            return None
        options = []
        for name in names:
            if name == "object":
                needs = self._required_properties(pointer, node)
            else:
                needs = self._required_items(pointer, node)
            if not needs:
                return None
            options.append(self._gate(False, needs))
        return options[0] if len(options) == 1 else self._gate(True, options)

    def _required_properties(self, pointer: str, node: dict[str, Any]) -> list[_Gate]:
        out = []
        raw = node.get("properties")
        properties: dict[str, Any] = raw if isinstance(raw, dict) else {}
        for name in node.get("required") or ():
            if isinstance(name, str) and name in properties:
                child = self.nodes.get(_pointer(pointer, "properties", name))
            elif isinstance(node.get("additionalProperties"), (dict, bool)):
                child = self.nodes.get(_pointer(pointer, "additionalProperties"))
            else:
                child = None
            if child is not None:
                out.append(child)
        return out

    def _required_items(self, pointer: str, node: dict[str, Any]) -> list[_Gate]:
        raw_least, raw_prefix = node.get("minItems"), node.get("prefixItems")
        least: int = raw_least if isinstance(raw_least, int) else 0
        prefix: list[Any] = raw_prefix if isinstance(raw_prefix, list) else []
        out = [self.nodes[p] for i in range(min(least, len(prefix)))
               if (p := _pointer(pointer, "prefixItems", i)) in self.nodes]
        if least > len(prefix) and isinstance(node.get("items"), (dict, bool)):
            out.append(self.nodes[_pointer(pointer, "items")])
        if "contains" in node and _pointer(pointer, "contains") in self.nodes:
            out.append(self.nodes[_pointer(pointer, "contains")])
        return out

    def solve(self) -> None:
        """Mark every productive gate (the least fixed point)."""
        ready: list[_Gate] = []
        for gate in self.gates:
            for child in gate.inputs:
                child.parents.append(gate)
            gate.waiting = (1 if gate.inputs else 0) if gate.any_of else len(gate.inputs)
            if not gate.any_of and not gate.inputs:
                gate.productive = True
                ready.append(gate)
        while ready:
            done = ready.pop()
            for parent in done.parents:
                if parent.productive:
                    continue
                parent.waiting -= 1
                if parent.waiting <= 0:
                    parent.productive = True
                    ready.append(parent)

    def loop_from(self, start: _Gate) -> list[str] | None:
        """A cycle of unproductive schemas reachable from ``start``, as pointers; None when there is none."""
        on_path: dict[int, int] = {}
        path: list[_Gate] = []
        finished: set[int] = set()
        stack: list[tuple[_Gate, Iterator[_Gate]]] = [(start, iter(start.inputs))]
        on_path[id(start)] = 0
        path.append(start)
        while stack:
            gate, children = stack[-1]
            child = next((c for c in children if not c.productive and id(c) not in finished), None)
            if child is None:
                stack.pop()
                path.pop()
                del on_path[id(gate)]
                finished.add(id(gate))
                continue
            if id(child) in on_path:
                cycle = [g.pointer for g in path[on_path[id(child)]:] if g.pointer is not None]
                return [*cycle, child.pointer or cycle[0]] if cycle else None
            on_path[id(child)] = len(path)
            path.append(child)
            stack.append((child, iter(child.inputs)))
        return None


def unproductive_loop(schema: Any) -> list[str] | None:
    """The loop that leaves ``schema`` with no finite match (JSON pointers, first repeated last), or None."""
    if not isinstance(schema, dict):
        return None
    graph = _Graph(schema)
    graph.solve()
    root = graph.nodes["#"]
    return None if root.productive else graph.loop_from(root)


def describe_loop(loop: list[str]) -> str:
    shown = loop if len(loop) <= MAX_LOOP_SHOWN else [*loop[:MAX_LOOP_SHOWN - 1], "...", loop[-1]]
    return (f"the schema refers to itself with no way to end: {' -> '.join(shown)}; every value would have to "
            "contain itself (give the loop a base case: an optional or nullable property, or an anyOf branch "
            "that does not recurse)")
