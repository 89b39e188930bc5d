"""Every chat template llama.cpp keeps renders every ordinary conversation through superfluid's template contract.

The templates are test data (``published_templates/``, from the llama-cpp-python 0.3.36 sdist, MIT). Each
conversation goes the way a served request goes: the messages become engine messages, ``plan_output`` gives
the template's view of them (native or generic tool history, the call format's tools), and the template renders
that. A refusal of the template's own is allowed only where it is listed below with the reason; anything else
that stops a render fails the test, since on the server it would be a 400 for an ordinary request.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from superfluid.engine.decoding.output_plan import plan_output
from superfluid.engine.decoding.tool_calls import ToolPolicy, ToolSpec
from superfluid.engine.models.chat_template import ChatTemplate, TemplateCompileError, TemplateError
from superfluid.engine.types import ChatMessage, PastCall

FOLDER = Path(__file__).parent / "published_templates"
TEMPLATES = sorted(p.name for p in FOLDER.glob("*.jinja"))

WEATHER = ToolSpec(name="get_weather", description="Current weather for a city",
                   parameters={"type": "object", "properties": {"city": {"type": "string", "description": "City"}},
                               "required": ["city"]})


def _call(n: int, city: str) -> dict[str, Any]:
    return {"id": f"call_{n}", "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}


def _result(n: int, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"call_{n}", "name": "get_weather", "content": text}


@dataclass(frozen=True)
class Conversation:
    messages: list[dict[str, Any]]
    tools: bool = False
    choice: str = "auto"
    kwargs: dict[str, Any] = field(default_factory=dict)


ASK = {"role": "user", "content": "What is the weather in Oslo?"}
CONVERSATIONS = {
    "plain": Conversation([{"role": "user", "content": "Hello!"}]),
    "system": Conversation([{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Hi"}]),
    "multi_turn": Conversation([{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Hi"},
                                {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Bye"}]),
    "tools_declared": Conversation([ASK], tools=True),
    "tools_required": Conversation([ASK], tools=True, choice="required"),
    "one_call": Conversation([ASK, {"role": "assistant", "content": None, "tool_calls": [_call(1, "Oslo")]},
                              _result(1, "Sunny, 21 C")], tools=True),
    "parallel_calls": Conversation([
        {"role": "user", "content": "Weather in Oslo and Bergen?"},
        {"role": "assistant", "content": "", "tool_calls": [_call(1, "Oslo"), _call(2, "Bergen")]},
        _result(1, "Sunny"), _result(2, "Rain")], tools=True),
    "call_history_without_tools": Conversation([ASK, {"role": "assistant", "content": "",
                                                      "tool_calls": [_call(1, "Oslo")]}, _result(1, "Sunny")]),
    "reasoning_history": Conversation([
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4", "reasoning_content": "Two and two make four."},
        {"role": "user", "content": "And 3+3?"}]),
    "thinking_on": Conversation([{"role": "user", "content": "Hi"}], kwargs={"enable_thinking": True}),
    "thinking_off": Conversation([{"role": "user", "content": "Hi"}], kwargs={"enable_thinking": False}),
}

# Refusals written into the templates themselves, for conversations their models were never meant to see.
REFUSED: dict[tuple[str, str], str] = {}


@functools.cache
def _template(name: str) -> ChatTemplate:
    return ChatTemplate((FOLDER / name).read_text("utf-8"), name=name, bos_token="<s>", eos_token="</s>")


def _engine_messages(messages: list[dict[str, Any]]) -> tuple[ChatMessage, ...]:
    return tuple(ChatMessage.from_template_dict(m) for m in messages)


def render(template: ChatTemplate, conversation: Conversation, **kwargs: Any) -> str:
    """The prompt a served chat request would decode from (what ``ServedModel._prompt`` renders)."""
    policy = ToolPolicy(tools=(WEATHER,), choice=conversation.choice) if conversation.tools else None
    plan = plan_output(_engine_messages(conversation.messages), template, tools=policy, constraint=None)
    wanted = {**conversation.kwargs, **kwargs}
    # enable_thinking=False goes to any template; True only to one that reads it (else it is a 400 by design).
    usable = {k: v for k, v in wanted.items() if k in template.variables or v is False}
    return template.render(plan.messages, tools=plan.template_tools, kwargs=usable).text


def test_the_folder_holds_llama_cpps_templates() -> None:
    assert len(TEMPLATES) >= 70


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_compiles(name: str) -> None:
    _template(name)


@pytest.mark.parametrize("conversation", sorted(CONVERSATIONS))
@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_renders_every_conversation(name: str, conversation: str) -> None:
    template = _template(name)
    case = CONVERSATIONS[conversation]
    if (name, conversation) in REFUSED:
        with pytest.raises(TemplateError):
            render(template, case)
        return
    text = render(template, case)
    assert text.strip()
    for message in case.messages:  # what the user said is in the prompt, whatever the template does with roles
        if message["role"] in ("user", "system") and message["content"]:
            assert message["content"] in text, f"{message['content']!r} missing from the prompt"


@pytest.mark.parametrize("name", TEMPLATES)
def test_tool_results_reach_the_prompt(name: str) -> None:
    text = render(_template(name), CONVERSATIONS["parallel_calls"])
    assert "Sunny" in text
    assert "Rain" in text


@pytest.mark.parametrize("name", [n for n in TEMPLATES if "tools" in _template(n).variables])
def test_declared_tools_reach_the_prompt_of_templates_that_read_them(name: str) -> None:
    text = render(_template(name), CONVERSATIONS["tools_declared"])
    assert "get_weather" in text


def test_a_template_that_does_not_compile_names_its_line() -> None:
    with pytest.raises(TemplateCompileError) as caught:
        ChatTemplate("{% for m in messages %}\n{{ m.content }}\n{% endif %}", name="broken.jinja",
                     bos_token="", eos_token="")
    assert "broken.jinja" in str(caught.value)
    assert "line 3" in str(caught.value)


# ---- exact prompts for a few families ----------------------------------------------------------------------


def test_qwen25_prompt_with_a_call_and_its_result() -> None:
    text = render(_template("Qwen-Qwen2.5-7B-Instruct.jinja"), CONVERSATIONS["one_call"])
    assert text.endswith(
        "<|im_start|>user\nWhat is the weather in Oslo?<|im_end|>\n"
        '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
        "<|im_end|>\n<|im_start|>user\n<tool_response>\nSunny, 21 C\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n")


def test_gemma2_folds_the_system_prompt_into_the_first_user_turn() -> None:
    text = render(_template("google-gemma-2-2b-it.jinja"), CONVERSATIONS["multi_turn"])
    assert text == ("<s><start_of_turn>user\nAnswer briefly.\nHi<end_of_turn>\n<start_of_turn>model\nHello!"
                    "<end_of_turn>\n<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n")


def test_llama33_dates_its_system_header_and_splits_parallel_calls() -> None:
    text = render(_template("meta-llama-Llama-3.3-70B-Instruct.jinja"), CONVERSATIONS["parallel_calls"],
                  date_string="03 Dec 2026")
    assert "Today Date: 03 Dec 2026" in text
    assert text.count('{"name": "get_weather", "parameters": ') == 2
    assert text.index('"Oslo"') < text.index("Sunny") < text.index('"Bergen"') < text.index("Rain")


def test_hermes_tool_use_renders_a_plain_chat_without_tools() -> None:
    text = render(_template("NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja"), CONVERSATIONS["plain"])
    assert "<tools>  </tools>" in text
    assert text.endswith("<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n")


def test_mistral_call_ids_are_mapped_to_nine_characters_the_same_for_call_and_result() -> None:
    text = render(_template("mistralai-Mistral-Nemo-Instruct-2407.jinja"), CONVERSATIONS["one_call"])
    assert "call_1" not in text
    call_id = text.split('"id": "', 1)[1][:9]
    assert call_id.isalnum()
    assert text.count(call_id) == 2


def test_generation_blocks_render_their_body() -> None:
    template = _template("poolside-Laguna-XS.2.jinja")
    text = render(template, CONVERSATIONS["multi_turn"])
    assert "Hello!" in text


# ---- reasoning blocks ---------------------------------------------------------------------------------------

REASONING = {
    "Qwen-Qwen3-0.6B.jinja": ("<think>", "</think>"),
    "ByteDance-Seed-OSS.jinja": ("<seed:think>", "</seed:think>"),
    "tencent-Hy3.jinja": ("<think:opensource>", "</think:opensource>"),  # built at render time
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja": ("<|START_THINKING|>", "<|END_THINKING|>"),
    "google-gemma-4-31B-it.jinja": ("<|channel>thought", "<channel|>"),
    "mistralai-Ministral-3-14B-Reasoning-2512.jinja": ("[THINK]", "[/THINK]"),
    "MiniMax-M3.jinja": ("<mm:think>", "</mm:think>"),
    "Kimi-K3.jinja": ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
    "muse-glimmer.jinja": (" to=self<|message|>", "<|eom|>"),
}


@pytest.mark.parametrize("name", sorted(REASONING))
def test_a_template_s_reasoning_block_is_the_one_it_renders(name: str) -> None:
    template = _template(name)
    assert template.thinks
    assert template.reasoning == REASONING[name]


def test_templates_without_a_reasoning_block_do_not_think() -> None:
    for name in ("meta-llama-Llama-3.3-70B-Instruct.jinja", "Qwen-Qwen2.5-7B-Instruct.jinja",
                 "google-gemma-2-2b-it.jinja"):
        assert not _template(name).thinks, name


def test_a_prompt_that_opens_the_template_s_block_starts_in_reasoning() -> None:
    template = _template("Qwen3.5-4B.jinja")
    rendered = template.render([{"role": "user", "content": "Hi."}], kwargs={"enable_thinking": True})
    assert rendered.starts_in_reasoning
    off = template.render([{"role": "user", "content": "Hi."}], kwargs={"enable_thinking": False})
    assert not off.starts_in_reasoning


def test_mistral_calls_without_ids_get_them_from_their_place() -> None:
    # Ollama's calls and results carry no ids; Mistral's templates refuse a call without a 9-character one.
    template = _template("Mistral-Small-3.2-24B-Instruct-2506.jinja")
    messages = (
        ChatMessage(role="user", content="Weather in Paris?"),
        ChatMessage(role="assistant", content="", tool_calls=(PastCall("get_weather", '{"city": "Paris"}'),)),
        ChatMessage(role="tool", content="Sunny.", name="get_weather"),
    )
    plan = plan_output(messages, template, tools=None, constraint=None)
    call_id = plan.messages[1]["tool_calls"][0]["id"]
    assert len(call_id) == 9 and call_id.isalnum() and plan.messages[2]["tool_call_id"] == call_id
    assert "Sunny." in template.render(plan.messages).text
