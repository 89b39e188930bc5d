"""The end of a call loop: a reply that makes the same call twice (same function, same arguments) ends there.

Small models given parallel calls (Anthropic's default, and what Codex asks for) often never close the list:
they write one call, then the same call again, until the token cap, and the agent runs it each time. A call
whose name an earlier call of the reply had is held back until its arguments are whole. If it repeats an
earlier call it is dropped and the reply ends with the calls before it (finish reason ``tool_calls``);
otherwise it goes out as usual. Calls to functions not called before stream as they are read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from superfluid.engine.decoding.tool_calls import ToolCallDelta


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), sort_keys=True, separators=(",", ":"))
    except ValueError:
        return arguments.strip()


class RepeatGuard:
    def __init__(self) -> None:
        self.made: set[tuple[str, str]] = set()
        self.names: set[str] = set()
        self.open: list[str] | None = None  # [name, arguments so far] of the call being read
        self.held: list[ToolCallDelta] = []
        self.holding = False
        self.repeated = False
        """A repeat was found: the reply ends, and nothing after it goes out."""

    def take(self, deltas: Iterable[ToolCallDelta]) -> tuple[ToolCallDelta, ...]:
        """The deltas that may go out now."""
        out: list[ToolCallDelta] = []
        for delta in deltas:
            if self.repeated:
                break
            if delta.name is not None:
                out += self._close()
                if self.repeated:
                    break
                self.open = [delta.name, ""]
                self.holding = delta.name in self.names
            if self.open is not None:
                self.open[1] += delta.arguments
            (self.held if self.holding else out).append(delta)
        return tuple(out)

    def finish(self) -> tuple[ToolCallDelta, ...]:
        """At the reply's end: the last call, unless it was a repeat."""
        return tuple(self._close()) if not self.repeated else ()

    def _close(self) -> list[ToolCallDelta]:
        if self.open is None:
            return []
        name, arguments = self.open
        self.open = None
        key = (name, _canonical(arguments))
        held, self.held = self.held, []
        if self.holding and key in self.made:
            self.repeated = True
            return []
        self.holding = False
        self.made.add(key)
        self.names.add(name)
        return held
