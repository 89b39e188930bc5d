"""Chat templates: built-ins, GGUF-style templates, request variables and the helpers templates call."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from superfluid.engine.models.chat_template import (
    BUILTIN_TEMPLATES,
    ChatTemplate,
    TemplateError,
    builtin_template_source,
    family_template_name,
)
from superfluid.errors import InvalidRequest, UnsupportedParameter

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello!"},
    {"role": "user", "content": "Bye"},
]


def _builtin(name: str) -> ChatTemplate:
    return ChatTemplate(builtin_template_source(name), name=name, bos_token="<BOS>", eos_token="<EOS>")


def _inline(source: str, name: str = "inline") -> ChatTemplate:
    return ChatTemplate(source, name=name, bos_token="<BOS>", eos_token="<EOS>")


# --- built-in templates ---------------------------------------------------------------------------------


def test_chatml_renders_every_turn_and_the_generation_prompt() -> None:
    rendered = _builtin("chatml").render(CONVERSATION)
    assert rendered.text == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\nHello!<|im_end|>\n"
        "<|im_start|>user\nBye<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    assert rendered.starts_in_reasoning is False


def test_chatml_without_generation_prompt() -> None:
    text = _builtin("chatml").render(CONVERSATION[1:2], add_generation_prompt=False).text
    assert text == "<|im_start|>user\nHi<|im_end|>\n"


def test_gemma_folds_the_system_text_into_the_first_user_turn() -> None:
    text = _builtin("gemma").render(CONVERSATION).text
    assert text == (
        "<BOS><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n"
        "<start_of_turn>model\nHello!<end_of_turn>\n"
        "<start_of_turn>user\nBye<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


def test_gemma_without_system_message() -> None:
    text = _builtin("gemma").render(CONVERSATION[1:2]).text
    assert text == "<BOS><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"


def test_llama3_headers_and_end_of_turn() -> None:
    text = _builtin("llama3").render(CONVERSATION).text
    assert text == (
        "<BOS>"
        "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


def test_mistral_inst_blocks_with_system_prefix_and_eos_after_replies() -> None:
    text = _builtin("mistral").render(CONVERSATION).text
    assert text == "<BOS>[INST] Be brief.\n\nHi [/INST]Hello!<EOS>[INST] Bye [/INST]"


@pytest.mark.parametrize("name", BUILTIN_TEMPLATES)
def test_builtins_do_not_think_and_accept_no_extra_variables(name: str) -> None:
    template = _builtin(name)
    assert template.thinks is False
    with pytest.raises(UnsupportedParameter):
        template.check_kwargs({"reasoning_effort": "high"})


def test_unknown_builtin_name_is_refused() -> None:
    with pytest.raises(ValueError, match="chatml"):
        builtin_template_source("vicuna")


# --- family mapping -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("architecture", "expected"),
    [
        ("gemma", "gemma"),
        ("gemma2", "gemma"),
        ("gemma3", "gemma"),
        ("gemma3n", "gemma"),
        ("llama", "llama3"),
        ("mistral", "mistral"),
        ("qwen2", "chatml"),
        ("some-future-arch", "chatml"),
        ("", "chatml"),
    ],
)
def test_family_template_name(architecture: str, expected: str) -> None:
    assert family_template_name(architecture) == expected
    assert expected in BUILTIN_TEMPLATES


# --- GGUF-style templates ------------------------------------------------------------------------------

STRICT_ALTERNATION = (
    "{%- for message in messages -%}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{%- endif -%}"
    "[{{ message['role'] }}] {{ message['content'] }};"
    "{%- endfor -%}"
)


def test_raise_exception_becomes_a_400_naming_messages() -> None:
    template = _inline(STRICT_ALTERNATION, name="gguf")
    with pytest.raises(InvalidRequest) as caught:
        template.render([{"role": "assistant", "content": "I speak first"}])
    error = caught.value
    assert isinstance(error, TemplateError)
    assert error.status == 400
    assert error.error_type == "invalid_request_error"
    assert error.param == "messages"
    assert "roles must alternate" in error.message


def test_raise_exception_template_renders_when_the_rule_holds() -> None:
    text = _inline(STRICT_ALTERNATION).render([{"role": "user", "content": "hi"}]).text
    assert text == "[user] hi;"


def test_render_failure_is_a_400_not_a_crash() -> None:
    template = _inline("{% for tool in messages[0].tools %}{{ tool }}{% endfor %}")
    with pytest.raises(TemplateError) as caught:
        template.render([{"role": "user", "content": "x", "tools": None}])  # None is not iterable: a TypeError
    assert caught.value.status == 400
    assert caught.value.param == "messages"
    assert "TypeError" in caught.value.message


def test_undefined_values_chain_and_join_strings_as_llama_cpp_has_them() -> None:
    template = _inline("{{ messages[0].content.nope.deeper }}|{{ '): ' + messages[0].description }}")
    assert template.render([{"role": "user", "content": "x"}]).text == "|): "


def test_a_template_may_change_its_own_copies_but_never_the_request() -> None:
    template = _inline("{% set _ = messages.append({'role': 'user', 'content': 'added'}) %}"
                       "{% for m in messages %}{{ m.content }};{% endfor %}")
    messages = [{"role": "user", "content": "x"}]
    assert template.render(messages).text == "x;added;"
    assert messages == [{"role": "user", "content": "x"}]


def test_the_sandbox_still_refuses_python_internals() -> None:
    assert _inline("{{ messages.__class__ }}").render([{"role": "user", "content": "x"}]).text == ""
    with pytest.raises(TemplateError):
        _inline("{{ ''.__class__.__mro__[1].__subclasses__() }}").render([{"role": "user", "content": "x"}])


def test_generation_blocks_render_their_body() -> None:
    template = _inline("{% for m in messages %}{% generation %}[{{ m.content }}]{% endgeneration %}{% endfor %}")
    assert template.render([{"role": "user", "content": "x"}]).text == "[x]"


def test_from_json_and_tojson_over_a_generator() -> None:
    template = _inline("{{ ('{\"a\": 1}' | from_json).a }} {{ messages | map(attribute='role') | tojson }}")
    assert template.render([{"role": "user", "content": "x"}]).text == '1 ["user"]'


def test_tools_are_none_without_tools_unless_only_undefined_renders() -> None:
    guarded = _inline("{% if tools is not none %}TOOLS{% endif %}{{ messages[0].content }}")
    assert guarded.render([{"role": "user", "content": "x"}]).text == "x"
    unguarded = _inline("{% for tool in tools %}{{ tool }}{% endfor %}{{ messages[0].content }}")
    assert unguarded.render([{"role": "user", "content": "x"}]).text == "x"


def test_a_template_without_a_system_role_gets_the_system_text_in_the_first_user_turn() -> None:
    template = _inline("{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('no system') }}"
                       "{% endif %}<{{ m.role }}>{{ m.content }}{% endfor %}")
    assert template.caps.system_role is False
    text = template.render([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]).text
    assert text == "<user>S\nU"


def test_developer_messages_are_system_messages() -> None:
    text = _builtin("chatml").render([{"role": "developer", "content": "D"}, {"role": "user", "content": "U"}]).text
    assert text.startswith("<|im_start|>system\nD<|im_end|>")


def test_loop_controls_are_available() -> None:
    template = _inline("{% for m in messages %}{% if loop.index > 1 %}{% break %}{% endif %}{{ m.content }}"
                       "{% endfor %}")
    assert template.render([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]).text == "a"


def test_strftime_now_formats_the_current_date() -> None:
    template = _inline("Today is {{ strftime_now('%Y-%m-%d') }}.")
    before = datetime.datetime.now().strftime("%Y-%m-%d")
    text = template.render([]).text
    after = datetime.datetime.now().strftime("%Y-%m-%d")
    assert text in (f"Today is {before}.", f"Today is {after}.")


def test_tojson_keeps_non_ascii_and_angle_brackets_as_they_are() -> None:
    template = _inline("{{ tools | tojson }}")
    tools = [{"name": "wetter", "description": "<b>Grüße</b> & more"}]
    assert template.render([], tools=tools).text == '[{"name": "wetter", "description": "<b>Grüße</b> & more"}]'


def test_tojson_indent_argument() -> None:
    template = _inline("{{ messages[0] | tojson(indent=2) }}")
    text = template.render([{"role": "user", "content": "x"}]).text
    assert text == '{\n  "role": "user",\n  "content": "x"\n}'


def test_empty_tools_list_renders_as_none() -> None:
    template = _inline("{% if tools %}TOOLS{% else %}NONE{% endif %}")
    assert template.render([], tools=[]).text == "NONE"
    assert template.supports_tools is True


# --- request template variables ------------------------------------------------------------------------

QWEN_LIKE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n"
    "{% else %}<think>\n{% endif %}"
    "{% endif %}"
)


def test_template_that_opens_a_think_block_starts_in_reasoning() -> None:
    template = _inline(QWEN_LIKE)
    assert template.thinks is True
    rendered = template.render([{"role": "user", "content": "q"}])
    assert rendered.text.endswith("<think>\n")
    assert rendered.starts_in_reasoning is True


def test_enable_thinking_false_closes_the_block_in_the_prompt() -> None:
    rendered = _inline(QWEN_LIKE).render([{"role": "user", "content": "q"}], kwargs={"enable_thinking": False})
    assert rendered.text.endswith("<think>\n\n</think>\n\n")
    assert rendered.starts_in_reasoning is False


def test_thinks_detected_from_the_enable_thinking_variable_alone() -> None:
    template = _inline("{% if enable_thinking %}/think{% endif %}{{ messages[0].content }}")
    assert template.thinks is True
    assert "enable_thinking" in template.variables


def test_thinks_detected_from_the_marker_alone() -> None:
    assert _inline("{{ messages[0].content }}<think>").thinks is True


def test_reasoning_levels_detected() -> None:
    assert _inline("{{ reasoning_effort }}").reasoning_levels is True
    assert _inline("{{ messages }}").reasoning_levels is False


def _published(name: str) -> ChatTemplate:
    source = (Path(__file__).parent / "published_templates" / name).read_text()
    return ChatTemplate(source, name=name, bos_token="<s>", eos_token="</s>")


def test_a_template_that_reads_thinking_gets_the_switch_under_that_name() -> None:
    """Kimi K3's template reads ``thinking`` (on when undefined): the request's ``enable_thinking`` reaches it
    under that name, so turning thinking off ends the prompt in the response block instead of the think block."""
    template = _published("Kimi-K3.jinja")
    assert template.thinking_switch == "thinking" and "enable_thinking" not in template.variables
    ask = [{"role": "user", "content": "Hi."}]
    default, on = template.render(ask), template.render(ask, kwargs={"enable_thinking": True})
    off = template.render(ask, kwargs={"enable_thinking": False})
    assert default == on and on.text.endswith('<|open|>message role="assistant"<|sep|><|open|>think<|sep|>')
    assert on.starts_in_reasoning and "thinking_effort" in on.text
    assert off.text.endswith('<|open|>message role="assistant"<|sep|><|open|>response<|sep|>')
    assert not off.starts_in_reasoning and "thinking_effort" not in off.text
    assert off == template.render(ask, kwargs={"thinking": False}), "the template's own name works as before"
    assert template.render(ask, kwargs={"enable_thinking": False, "thinking": True}) == on, "and wins"
    assert template.thinking_on({}) and template.thinking_on({"enable_thinking": True})
    assert not template.thinking_on({"enable_thinking": False})


def test_a_thinking_switch_off_by_default_stays_off_until_a_request_turns_it_on() -> None:
    """Granite 3.3's template reads ``thinking`` too, off when undefined: its prompt changes only when asked."""
    template = _published("ibm-granite-granite-3.3-2B-Instruct.jinja")
    assert template.thinking_switch == "thinking"
    ask = [{"role": "user", "content": "Hi."}]
    plain = template.render(ask).text
    assert template.render(ask, kwargs={"enable_thinking": False}).text == plain
    on = template.render(ask, kwargs={"enable_thinking": True}).text
    assert on != plain and "Write your thoughts between <think></think>" in on
    assert not template.thinking_on({}) and template.thinking_on({"enable_thinking": True})


def test_granite_s_answer_tags_are_found_in_its_source() -> None:
    """Granite 3.3 asks for the answer between <response></response>: its replies are read without those tags.
    MiniMax writes <response> around tool results in the prompt, and Kimi K3 builds its response block from
    pieces: neither gets them."""
    assert _published("ibm-granite-granite-3.3-2B-Instruct.jinja").answer_tags == ("<response>", "</response>")
    assert _published("ibm-granite-granite-3.3-2B-Instruct.jinja").reasoning == ("<think>", "</think>")
    for name in ("MiniMax-M2.jinja", "MiniMax-M3.jinja", "Kimi-K3.jinja", "Qwen3-Coder.jinja"):
        assert _published(name).answer_tags is None, name
    folder = Path(__file__).parent / "published_templates"
    tagged = {path.name for path in folder.glob("*.jinja") if _published(path.name).answer_tags}
    assert tagged == {"ibm-granite-granite-3.3-2B-Instruct.jinja"}
    assert _builtin("chatml").answer_tags is None


def test_kimi_k3_takes_a_thinking_effort_of_its_own() -> None:
    """Kimi K3's template reads ``thinking_effort`` (low, high or max; max when unset) beside its switch."""
    template = _published("Kimi-K3.jinja")
    assert "thinking_effort" in template.variables and "reasoning_effort" not in template.variables
    ask = [{"role": "user", "content": "Hi."}]
    for level in ("low", "high", "max"):
        text = template.render(ask, kwargs={"enable_thinking": True, "thinking_effort": level}).text
        assert f"`thinking_effort={level}`" in text
    assert "`thinking_effort=max`" in template.render(ask).text
    with pytest.raises(TemplateError, match="supported values are low, high, and max"):
        template.render(ask, kwargs={"thinking_effort": "medium"})
    off = template.render(ask, kwargs={"enable_thinking": False, "thinking_effort": "high"}).text
    assert "thinking_effort" not in off


def test_a_template_that_reads_both_switches_keeps_enable_thinking() -> None:
    template = _published("deepseek-ai-DeepSeek-V3.1.jinja")
    assert {"enable_thinking", "thinking"} <= template.variables and template.thinking_switch == "enable_thinking"
    assert template.request_variables({"enable_thinking": False}) == {"enable_thinking": False}


def test_check_kwargs_refuses_a_variable_the_template_never_reads() -> None:
    with pytest.raises(UnsupportedParameter) as caught:
        _builtin("chatml").check_kwargs({"custom_flag": True})
    error = caught.value
    assert error.status == 400
    assert error.code == "unsupported_parameter"
    assert error.param == "chat_template_kwargs.custom_flag"
    assert "chatml" in error.message


def test_render_refuses_unread_variables_too() -> None:
    with pytest.raises(UnsupportedParameter) as caught:
        _builtin("llama3").render(CONVERSATION, kwargs={"reasoning_effort": "low"})
    assert caught.value.param == "chat_template_kwargs.reasoning_effort"


def test_enable_thinking_false_is_accepted_by_any_template() -> None:
    template = _builtin("chatml")
    template.check_kwargs({"enable_thinking": False})
    assert template.render(CONVERSATION[1:2], kwargs={"enable_thinking": False}).text.startswith("<|im_start|>")


def test_enable_thinking_true_is_refused_by_a_template_that_cannot_think() -> None:
    with pytest.raises(UnsupportedParameter) as caught:
        _builtin("chatml").check_kwargs({"enable_thinking": True})
    assert caught.value.param == "chat_template_kwargs.enable_thinking"


def test_a_variable_the_template_reads_is_passed_through() -> None:
    template = _inline("{{ persona | default('plain') }}: {{ messages[0].content }}")
    template.check_kwargs({"persona": "pirate"})
    assert template.render([{"role": "user", "content": "x"}], kwargs={"persona": "pirate"}).text == "pirate: x"


@pytest.mark.parametrize("provided", ["messages", "bos_token", "add_generation_prompt", "raise_exception"])
def test_variables_the_server_provides_cannot_be_overridden(provided: str) -> None:
    template = _inline("{{ bos_token }}{{ messages }}{{ add_generation_prompt }}{{ raise_exception }}")
    with pytest.raises(UnsupportedParameter) as caught:
        template.check_kwargs({provided: "x"})
    assert caught.value.param == f"chat_template_kwargs.{provided}"
