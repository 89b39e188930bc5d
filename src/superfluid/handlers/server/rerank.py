"""POST /v1/rerank (also /v1/reranking and /rerank): documents ordered by the cosine similarity of their
embeddings to the query's, most similar first. The query and the documents are embedded together."""

from __future__ import annotations

from typing import Any

from superfluid.engine import cosine_ranking
from superfluid.errors import InvalidRequest
from superfluid.handlers.context import request_body, services
from superfluid.handlers.openai.embeddings import tokenized


def _text(document: Any, index: int) -> str:
    text = document if isinstance(document, str) else document.get("text") if isinstance(document, dict) else None
    if not isinstance(text, str):
        raise InvalidRequest(f"documents[{index}] must be a string or an object with a text string",
                             param=f"documents[{index}]")
    return text


async def rerank() -> dict[str, Any]:
    body = request_body()
    documents = body.get("documents")
    if not isinstance(documents, list) or not documents:
        raise InvalidRequest("documents must be a non-empty array of strings", param="documents")
    texts = [_text(d, i) for i, d in enumerate(documents)]
    query = body["query"]
    model = await services().models.embedder(body["model"])
    tokens = (await tokenized(model, [query], truncate=False, param="query", indexed=False)
              + await tokenized(model, texts, truncate=False, param="documents"))
    pooled = await model.embed(tokens)
    ranking = cosine_ranking(pooled[0], pooled[1:])
    top_n = body.get("top_n")
    if top_n is not None:
        ranking = ranking[:top_n]
    results = []
    for index, score in ranking:
        result: dict[str, Any] = {"index": index, "relevance_score": score}
        if body.get("return_documents"):
            result["document"] = {"text": texts[index]}
        results.append(result)
    n_tokens = sum(len(t) for t in tokens)
    return {"object": "list", "model": model.id, "results": results,
            "usage": {"prompt_tokens": n_tokens, "total_tokens": n_tokens}}

