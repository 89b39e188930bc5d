"""What a served model prepares before a request is queued: a tool call's lazy grammar comes ready-built."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path

import pytest

from superfluid.engine.decoding import output_plan
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.types import ChatMessage, ChatPrompt, GenerationRequest
from superfluid.errors import ContextLengthExceeded
from superfluid.handlers.openai.params import tool_policy
from superfluid.settings import Settings

pytestmark = pytest.mark.filterwarnings("ignore:llama_token_get_attr is deprecated:DeprecationWarning")
"""llama-cpp-python calls its own deprecated name once per vocabulary entry while a model loads."""

HERMES = Path(__file__).parents[3] / "conformance" / "templates" / "hermes_tools.jinja"
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def _served(template: Path, parallel: int) -> Iterator[ServedModel]:
    settings = Settings(models=(DEFAULT_MODEL,), threads=1, parallel=parallel, ctx_size=1024 * parallel,
                        chat_template_file=template)
    model = ServedModel.load(DEFAULT_MODEL, resolve(DEFAULT_MODEL), settings)
    yield model
    model.close()


@pytest.fixture(scope="module")
def served() -> Iterator[ServedModel]:
    yield from _served(HERMES, parallel=2)


def _request(served: ServedModel, n: int) -> GenerationRequest:
    return GenerationRequest(model=served.id, n=n, tools=tool_policy(WEATHER, "auto", None),
                             prompt=ChatPrompt(messages=(ChatMessage(role="user", content="Weather in Oslo?"),)))


def test_a_tool_calls_lazy_grammar_is_built_with_the_prompt_one_per_choice(served: ServedModel) -> None:
    # Built on the engine thread when the reply wrote its trigger, it stalled every lane (18 ms for 128 tools).
    prepared = served.prepare(_request(served, 2))
    assert prepared.plan is not None and prepared.plan.lazy is not None and not prepared.grammars
    first, second = prepared.lazy_grammars
    assert first is not second and first.matcher is not second.matcher
    assert first.matcher.consume_tokens(served.grammar_tokenizer.tokenizer.tokenize_str(
        prepared.plan.lazy.trigger + '\n{"name": "get_weather", "arguments": {"city": "Oslo"}}'))


def test_counting_a_prompts_tokens_builds_no_grammar(served: ServedModel) -> None:
    prepared = served.prepare(_request(served, 1), check_window=False)
    assert prepared.tokens and not prepared.lazy_grammars and not prepared.grammars
    assert prepared.plan is not None and prepared.plan.pending is not None  # not even written out


def test_a_prompt_too_long_for_the_window_is_refused_before_its_grammar_is_written(
        served: ServedModel, monkeypatch: pytest.MonkeyPatch) -> None:
    # 400 tools do not fit 1,024 tokens; their grammar took longer to write out than the refusal.
    compiled: list[object] = []
    monkeypatch.setattr(output_plan, "compile_constraint", lambda c: compiled.append(c) or "")
    tools = [{"type": "function", "function": {"name": f"t{i}", "parameters": {
        "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}} for i in range(400)]
    request = GenerationRequest(model=served.id, tools=tool_policy(tools, "required", None),
                                prompt=ChatPrompt(messages=(ChatMessage(role="user", content="Hi"),)))
    with pytest.raises(ContextLengthExceeded):
        served.prepare(request)
    assert compiled == []


QWEN35 = Path(__file__).parent / "published_templates" / "Qwen3.5-4B.jinja"


@pytest.fixture(scope="module")
def thinking() -> Iterator[ServedModel]:
    yield from _served(QWEN35, parallel=2)


def _ask(served: ServedModel, choice: str) -> GenerationRequest:
    return GenerationRequest(model=served.id, tools=tool_policy(WEATHER, choice, None),
                             prompt=ChatPrompt(messages=(ChatMessage(role="user", content="Weather in Oslo?"),)))


def test_a_forced_call_closes_the_reasoning_block_the_template_opened(thinking: ServedModel) -> None:
    # Qwen3.5's template ends its generation prompt in "<think>\n": a reply constrained to a call from there
    # would have to be reasoning, and came back empty.
    forced = thinking.prepare(_ask(thinking, "required"))
    assert not forced.starts_in_reasoning
    buf = ctypes.create_string_buffer(256)
    tail = b"".join(thinking._llama.piece(t, buf, special=True) for t in forced.tokens[-12:]).decode()
    assert tail.endswith("<think>\n\n</think>\n\n"), tail
    free = thinking.prepare(_ask(thinking, "auto"))
    assert free.starts_in_reasoning, "auto leaves the model to think first"
