"""The operations the documents in openapi/ name, and the handler that serves each.

An ``operationId`` is part of the public contract: generated clients and docs/reference are built from it, so it
names what the operation does, never where its code lives. OpenAI's own names are used where OpenAI's published
description has the same operation (``createChatCompletion``); Ollama's description names its operations with
bare verbs, so those carry the dialect (``ollamaChat``). Connexion asks ``resolve`` for each name when the
documents are loaded; a name missing here fails the start, and tests/test_app.py checks the table and the
documents name the same operations.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from connexion.resolver import Resolver

# name -> "module:function", the module relative to superfluid.handlers
OPERATIONS: dict[str, str] = {
    # openapi/openai.yaml, OpenAI's operations
    "createChatCompletion": "openai.chat:create_chat_completion",
    "createCompletion": "openai.completions:create_completion",
    "listModels": "openai.models:list_models",
    "retrieveModel": "openai.models:get_model",
    "createResponse": "openai.responses.create:create_response",
    "getResponse": "openai.responses.retrieve:get_response",
    "deleteResponse": "openai.responses.retrieve:delete_response",
    "listInputItems": "openai.responses.retrieve:list_input_items",
    "createEmbedding": "openai.embeddings:create",
    "createTranscription": "openai.audio:transcriptions",
    "createTranslation": "openai.audio:translations",
    "createFile": "openai.files:create",
    "listFiles": "openai.files:list_files",
    "retrieveFile": "openai.files:retrieve",
    "deleteFile": "openai.files:delete",
    "downloadFile": "openai.files:content",
    "createBatch": "openai.batches:create",
    "listBatches": "openai.batches:list_batches",
    "retrieveBatch": "openai.batches:retrieve",
    "cancelBatch": "openai.batches:cancel",
    # openapi/openai.yaml, the server's own operations (llama-server's routes and superfluid's)
    "deleteModel": "server.model_admin:delete",
    "loadModel": "server.model_admin:load",
    "unloadModel": "server.model_admin:unload",
    "getMetrics": "server.metrics:metrics",
    "getMetricsV1": "server.metrics:metrics",
    "tokenize": "server.tokenize:tokenize",
    "rerank": "server.rerank:rerank",
    "rerankReranking": "server.rerank:rerank",
    "rerankRoot": "server.rerank:rerank",
    "getHealth": "server.operations:health",
    "getProps": "server.operations:props",
    "listSlots": "server.operations:slots",
    "manageSlot": "server.operations:slot_action",
    "saveSlot": "server.operations:slot_save",
    "restoreSlot": "server.operations:slot_restore",
    "listLoraAdapters": "server.lora:show",
    "loadLoraAdapter": "server.lora:load",
    "unloadLoraAdapter": "server.lora:unload",
    # openapi/anthropic.yaml
    "createMessage": "anthropic.messages:create_message",
    "countMessageTokens": "anthropic.messages:count_tokens",
    # openapi/ollama.yaml
    "ollamaIsRunning": "ollama.models:root",
    "ollamaVersion": "ollama.models:version",
    "ollamaListModels": "ollama.models:tags",
    "ollamaListRunning": "ollama.models:ps",
    "ollamaShowModel": "ollama.models:show",
    "ollamaChat": "ollama.chat:chat",
    "ollamaGenerate": "ollama.generate:generate",
    "ollamaEmbed": "ollama.embed:embed",
    "ollamaEmbeddings": "ollama.embed:embeddings",
}

# Ollama's model distribution: every method of each route is declared (each answers 501), so each method needs a
# name. The method Ollama uses gets the plain name; the others say which method they are.
DISTRIBUTION_ROUTES = {"pull": ("ollamaPullModel", {"post"}), "push": ("ollamaPushModel", {"post"}),
                       "create": ("ollamaCreateModel", {"post"}), "copy": ("ollamaCopyModel", {"post"}),
                       "delete": ("ollamaDeleteModel", {"delete"}), "blobs": ("ollamaBlob", {"get", "post"})}
DISTRIBUTION_METHODS = ("get", "post", "put", "patch", "delete")
_BLOB_NAMES = {"get": "ollamaCheckBlob", "post": "ollamaPushBlob"}


def distribution_name(route: str, method: str) -> str:
    """The operation name of ``method`` on Ollama's /api/``route``."""
    base, native = DISTRIBUTION_ROUTES[route]
    if method in native:
        return _BLOB_NAMES[method] if route == "blobs" else base
    return f"{base}Via{method.capitalize()}"


OPERATIONS.update({distribution_name(route, method): f"ollama.distribution:{route}"
                   for route in DISTRIBUTION_ROUTES for method in DISTRIBUTION_METHODS})


def resolve(operation_id: str) -> Callable[..., Any]:
    """The handler of one operation; KeyError names an operation no handler serves."""
    try:
        target = OPERATIONS[operation_id]
    except KeyError:
        raise KeyError(f"no handler serves the operation {operation_id!r} (superfluid.handlers.routes)") from None
    module, _, function = target.partition(":")
    handler: Callable[..., Any] = getattr(importlib.import_module(f"superfluid.handlers.{module}"), function)
    return handler


def resolver() -> Resolver:
    """Connexion's resolver for every document: operation names to handlers through this table."""
    return Resolver(function_resolver=resolve)
