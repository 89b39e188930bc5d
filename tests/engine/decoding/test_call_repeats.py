"""A reply that repeats a call ends before the repeat; distinct calls, even to one function, all go out."""

from __future__ import annotations

from superfluid.engine.decoding.call_repeats import RepeatGuard
from superfluid.engine.decoding.tool_calls import ToolCallDelta


def _call(index: int, name: str, arguments: str) -> list[ToolCallDelta]:
    half = len(arguments) // 2
    return [ToolCallDelta(index, id=f"call_{index}", name=name), ToolCallDelta(index, arguments=arguments[:half]),
            ToolCallDelta(index, arguments=arguments[half:])]


def _names(deltas: tuple[ToolCallDelta, ...]) -> list[tuple[int, str | None]]:
    return [(d.index, d.name) for d in deltas if d.name is not None]


def test_a_call_to_a_new_function_streams_at_once() -> None:
    guard = RepeatGuard()
    assert guard.take(_call(0, "ls", '{"path": "."}')) == tuple(_call(0, "ls", '{"path": "."}'))
    assert guard.take(_call(1, "cat", '{"path": "a"}'))[0].name == "cat"
    assert guard.finish() == () and not guard.repeated


def test_the_same_call_again_is_dropped_and_ends_the_reply() -> None:
    guard = RepeatGuard()
    out = guard.take(_call(0, "ls", '{"path": "."}'))
    out += guard.take(_call(1, "ls", '{"path":"."}'))  # held: the same function again
    assert _names(out) == [(0, "ls")]
    out += guard.take(_call(2, "ls", '{"path": "."}'))  # the next call opens: the held one was a repeat
    assert guard.repeated and _names(out) == [(0, "ls")]
    assert guard.take(_call(3, "cat", "{}")) == () and guard.finish() == ()


def test_a_second_call_with_other_arguments_goes_out_when_whole() -> None:
    guard = RepeatGuard()
    out = guard.take(_call(0, "ls", '{"path": "."}'))
    out += guard.take(_call(1, "ls", '{"path": "src"}'))
    assert _names(out) == [(0, "ls")], "held until its arguments are whole"
    out += guard.finish()
    assert _names(out) == [(0, "ls"), (1, "ls")] and not guard.repeated
    assert "".join(d.arguments for d in out if d.index == 1) == '{"path": "src"}'


def test_a_repeat_at_the_end_of_the_reply_is_dropped() -> None:
    guard = RepeatGuard()
    out = guard.take(_call(0, "ls", '{"b": 1, "a": 2}')) + guard.take(_call(1, "ls", '{"a": 2, "b": 1}'))
    out += guard.finish()
    assert _names(out) == [(0, "ls")] and guard.repeated
