"""Tool calling: call ids, and the call format each template speaks (policies from a request's fields are the
handlers', tests/handlers/test_tool_policy.py).

The grammars are tested in test_tool_grammars.py, the incremental readers in test_tool_readers.py.
"""

from __future__ import annotations

import pytest

from superfluid.engine.decoding.tool_calls import (
    mistral_call_id,
    new_call_id,
    new_mistral_call_id,
    solar_call_id,
    tool_format,
)

# ---- call ids ---------------------------------------------------------------------------------------------


def test_call_ids() -> None:
    assert new_call_id().startswith("call_")
    ids = {new_mistral_call_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(len(i) == 9 and i.isascii() and i.isalnum() for i in ids)


def test_mistral_history_ids_are_stable_nine_character_digests() -> None:
    assert mistral_call_id("abcDEF123") == "abcDEF123", "an id that already fits is kept"
    mapped = mistral_call_id("call_5f0c2e")
    assert len(mapped) == 9 and mapped.isascii() and mapped.isalnum()
    assert mistral_call_id("call_5f0c2e") == mapped, "a call and the result naming it map alike"
    assert mistral_call_id("call_5f0c2f") != mapped
    assert mistral_call_id("abc-EF123") != "abc-EF123"


def test_solar_history_ids_are_stable_ten_character_lowercase_digests() -> None:
    assert solar_call_id("a1b2c3d4e5") == "a1b2c3d4e5", "an id that already fits is kept"
    mapped = solar_call_id("call_5f0c2e")
    assert len(mapped) == 10 and all(ch.isdigit() or "a" <= ch <= "z" for ch in mapped)
    assert solar_call_id("call_5f0c2e") == mapped, "a call and the result naming it map alike"
    assert solar_call_id("call_5f0c2f") != mapped
    for unfit in ("A1B2C3D4E5", "a1b2c3d4e", "a1b2c3d4e5f", "a1b2c3-4e5", "é1b2c3d4e5"):
        fitted = solar_call_id(unfit)
        assert fitted != unfit and len(fitted) == 10 and fitted.isascii() and fitted == fitted.lower()
    assert mistral_call_id("call_5f0c2e") == "IUS1C9qxf", "Mistral's digest is unchanged"


# ---- which format a template speaks ---------------------------------------------------------------------------


@pytest.mark.parametrize("source, supports, expected", [
    ("{{ tools }} <tool_call>", True, "hermes"),
    ("{{ tools }} [TOOL_CALLS]", True, "mistral"),
    ("{{ tools }} <|python_tag|>", True, "llama3"),
    ("{{ tools }} <|start_header_id|>ipython<|end_header_id|> {\"name\": .., \"parameters\": ..}", True, "llama3"),
    ("{{ tools }} ipython without the JSON shape", True, "generic"),
    ("{{ tools }} ```tool_code", True, "gemma"),
    ("{{ tools }} <|open|>message<|sep|> <|close|>message<|sep|><|end_of_msg|>", True, "kimi_k3"),
    ("<|open|>message<|sep|> <|close|>message<|sep|><|end_of_msg|> without reading tools", False, "generic"),
    ("{{ tools }} <|start|>assistant to=f<|message|><atem:function_calls><|eom|>", True, "muse_glimmer"),
    ("<atem:function_calls><|eom|> without reading tools", False, "generic"),
    ("{{ tools }} some other way", True, "generic"),
    ("<tool_call> without reading tools", False, "generic"),
    ("[TOOL_CALLS] without reading tools", False, "generic"),
    ("tool_code without reading tools", False, "generic"),
    ("plain chatml", False, "generic"),
])
def test_tool_format_is_chosen_from_the_template(source: str, supports: bool, expected: str) -> None:
    assert tool_format(source, supports) == expected
