"""One real server on the real bundled model for the whole conformance session."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from openai import OpenAI

from conformance.lora_adapters import write_adapter
from conformance.server import (
    DEFAULT_MODEL,
    SECOND_MODEL,
    SERVER_ARGS,
    SERVER_ENV,
    RunningServer,
    start_server,
    stop_server,
)

# The shared harnesses assert on behalf of the test modules; let pytest explain their failures as it does theirs.
pytest.register_assert_rewrite("conformance.golden_harness", "conformance.schemathesis_harness",
                               "conformance.tool_checks")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    log_path = tmp_path_factory.mktemp("server") / "serve.log"
    running = start_server(SERVER_ARGS, log_path, env=SERVER_ENV)  # the goldens are recorded against the same
    yield running
    stop_server(running)


@pytest.fixture(scope="session")
def base_url(server: RunningServer) -> str:
    return server.base_url


@pytest.fixture
def http(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def client(base_url: str) -> Iterator[OpenAI]:
    """The official openai SDK on the server's /v1; no retries, so a failed request fails its test."""
    with OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0, timeout=180) as sdk:
        yield sdk


@pytest.fixture(scope="session")
def model() -> str:
    return DEFAULT_MODEL


@pytest.fixture(scope="session")
def second_model() -> str:
    return SECOND_MODEL


@pytest.fixture(scope="session")
def media_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A plain `superfluid serve` (the README's command, no model named): the chat, embedding and Whisper models
    it lists by default. Started only when an embeddings, rerank or audio test asks for it."""
    log_path = tmp_path_factory.mktemp("media") / "serve.log"
    running = start_server(["--parallel", "1"], log_path)
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def media_openai(media_server: RunningServer) -> Iterator[OpenAI]:
    """The openai SDK on the plain server's /v1 (no retries; transcriptions may take a while on 2 cores)."""
    with OpenAI(base_url=media_server.base_url + "/v1", api_key="unused", max_retries=0, timeout=300) as sdk:
        yield sdk


@pytest.fixture(scope="module")
def media_http(media_server: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=media_server.base_url, timeout=300) as client:
        yield client


# ---- keyed_server: keys, limits and LoRA adapters (documents self-validation, generated clients) ----
ADMIN_KEY, CAPPED_KEY, SLOW_KEY = "contract-admin", "contract-capped", "contract-slow"
# An admin key; a user key that may not ask for interactive QoS; an admin key (so that admin routes reach its
# rate) allowed a single request an hour.
KEYED_POLICY = f"""
[[keys]]
id = "admin"
key = "{ADMIN_KEY}"
role = "admin"

[[keys]]
id = "capped"
key = "{CAPPED_KEY}"
qos_ceiling = "background"

[[keys]]
id = "slow"
key = "{SLOW_KEY}"
role = "admin"
rate = "1/h"
burst = 1
"""


@pytest.fixture(scope="session")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server with a key policy (KEYED_POLICY) and an adapters directory: the documents' 401, 403 and 429
    (test_self_validation.py) and LoRA load's 200 (there and in test_generated_client.py)."""
    base = tmp_path_factory.mktemp("keyed")
    (base / "policy.toml").write_text(KEYED_POLICY)
    write_adapter(base / "adapters" / "styles" / "formal.gguf")  # zero B: POST /v1/lora/load's example
    running = start_server([DEFAULT_MODEL, "--key-policy", str(base / "policy.toml"),
                            "--lora-dir", str(base / "adapters")], base / "serve.log")
    yield running
    stop_server(running)
