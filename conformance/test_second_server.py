"""A second real server, configured through the CLI: a model from a Hugging Face cache laid out by the test,
an API key, a chat template file and an alias."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from conformance.server import RunningServer, bundled_model_file, start_server, stop_server

KEY = "sekrit-test-key"
REPO = "acme/SmolLM2-135M-Instruct-GGUF"

TEMPLATE = """{%- for m in messages -%}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor -%}{%- if add_generation_prompt -%}<|im_start|>assistant
{%- if greeting %}
{{ greeting }}{% else %}
{% endif -%}{%- endif -%}"""


def _lay_out_hf_cache(root: Path) -> None:
    """A hub cache as huggingface_hub writes it: refs/main names a snapshot holding the files."""
    gguf = bundled_model_file()
    repo_dir = root / ("models--" + REPO.replace("/", "--"))
    snapshot = repo_dir / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    (repo_dir / "refs").mkdir()
    (repo_dir / "refs" / "main").write_text("0123abcd")
    (snapshot / "smollm2-135m-instruct-Q4_1.gguf").symlink_to(gguf)
    (snapshot / "smollm2-135m-instruct-Q8_0.gguf").write_bytes(b"not a real model")


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("second")
    _lay_out_hf_cache(base / "hub")
    template = base / "greeting.jinja"
    template.write_text(TEMPLATE)
    (base / "broken.gguf").write_bytes(b"GGUF but not really a model")
    running = start_server(
        [f"{REPO}:Q4_1", str(base / "broken.gguf"), "--hf-cache", str(base / "hub"), "--api-key", KEY,
         "--chat-template-file", str(template), "--parallel", "1", "--ctx-size", "2048"],
        base / "serve.log",
    )
    yield running
    stop_server(running)


def test_hf_cache_model_is_served_under_its_repo_id(keyed: RunningServer) -> None:
    client = openai.OpenAI(base_url=keyed.base_url + "/v1", api_key=KEY)
    ids = [m.id for m in client.models.list().data]
    assert ids == [REPO, "broken"]
    model = client.models.retrieve(REPO)
    assert model.id == REPO
    reply = client.chat.completions.create(model=REPO, messages=[{"role": "user", "content": "Hi"}],
                                           max_tokens=4, temperature=0)
    assert reply.choices[0].message.content


def test_api_key_is_required_except_on_health(keyed: RunningServer) -> None:
    assert httpx.get(keyed.base_url + "/health").status_code == 200
    missing = httpx.get(keyed.base_url + "/v1/models")
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "invalid_api_key"
    wrong = httpx.get(keyed.base_url + "/v1/models", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert httpx.get(keyed.base_url + "/v1/models", headers={"X-Api-Key": KEY}).status_code == 200
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=keyed.base_url + "/v1", api_key="wrong").models.list()


def test_template_file_and_its_variables(keyed: RunningServer) -> None:
    headers = {"Authorization": f"Bearer {KEY}"}
    props = httpx.get(keyed.base_url + "/props", headers=headers).json()
    assert props["chat_template_source"] == "file"
    assert props["max_context"] == 2048
    body = {"model": REPO, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2, "temperature": 0,
            "chat_template_kwargs": {"greeting": "Ahoy!"}}
    ok = httpx.post(keyed.base_url + "/v1/chat/completions", json=body, headers=headers, timeout=60)
    assert ok.status_code == 200, ok.text
    # The variable reached the template: the rendered prompt is longer than without it.
    plain = httpx.post(keyed.base_url + "/v1/chat/completions", headers=headers, timeout=60,
                       json={**body, "chat_template_kwargs": {}}).json()
    assert ok.json()["usage"]["prompt_tokens"] > plain["usage"]["prompt_tokens"]
    refused = httpx.post(keyed.base_url + "/v1/chat/completions", headers=headers, timeout=60,
                         json={**body, "chat_template_kwargs": {"colour": "red"}})
    assert refused.status_code == 400
    assert refused.json()["error"]["param"] == "chat_template_kwargs.colour"


def test_engine_failure_is_a_clean_500_and_the_server_lives_on(keyed: RunningServer) -> None:
    headers = {"Authorization": f"Bearer {KEY}"}
    listed = httpx.get(keyed.base_url + "/v1/models/broken", headers=headers).json()
    assert listed["loaded"] is False and "could not load" in listed["error"]
    body = {"model": "broken", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}
    failed = httpx.post(keyed.base_url + "/v1/chat/completions", json=body, headers=headers, timeout=60)
    assert failed.status_code == 500
    error = failed.json()["error"]
    assert error["type"] == "server_error"
    assert "could not load" in error["message"] and "Traceback" not in error["message"]
    ok = httpx.post(keyed.base_url + "/v1/chat/completions", headers=headers, timeout=60,
                    json={**body, "model": REPO})
    assert ok.status_code == 200
