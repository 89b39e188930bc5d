"""The conformance suite's comparison of greedy replies up to a near-tie (conformance/near_tie.py)."""

from __future__ import annotations

from typing import Any

import pytest
from conformance.near_tie import same_up_to_a_near_tie


def _reply(steps: list[tuple[str, float, float]], finish: str = "stop") -> dict[str, Any]:
    """Each step: the token written, its log probability, and the runner-up's."""
    content = [{"token": token, "logprob": first, "top_logprobs": [{"token": token, "logprob": first},
                                                                    {"token": "<other>", "logprob": second}]}
               for token, first, second in steps]
    text = "".join(token for token, _, _ in steps)
    return {"choices": [{"finish_reason": finish, "message": {"content": text}, "logprobs": {"content": content}}]}


def test_equal_replies_and_a_fork_at_a_near_tie_agree() -> None:
    same = [("a", -0.1, -3.0), ("b", -0.2, -4.0)]
    same_up_to_a_near_tie(_reply(same), _reply(same))
    same_up_to_a_near_tie(_reply([("a", -0.1, -3.0), ("b", -1.00, -1.05)]),
                          _reply([("a", -0.1, -3.0), ("c", -1.01, -1.04)]))


def test_a_fork_where_one_token_was_clearly_likelier_does_not() -> None:
    with pytest.raises(AssertionError):
        same_up_to_a_near_tie(_reply([("a", -0.1, -3.0)]), _reply([("z", -0.2, -2.0)]))


def test_one_reply_stopping_where_the_other_went_on_needs_a_near_tie_there() -> None:
    stopped = _reply([("a", -0.1, -3.0)])
    same_up_to_a_near_tie(_reply([("a", -0.1, -3.0), ("b", -1.30, -1.32)], finish="length"), stopped)
    with pytest.raises(AssertionError):
        same_up_to_a_near_tie(_reply([("a", -0.1, -3.0), ("b", -0.1, -2.5)], finish="length"), stopped)
    with pytest.raises(AssertionError):  # the shorter one was cut, not ended by the end token
        same_up_to_a_near_tie(_reply([("a", -0.1, -3.0), ("b", -1.30, -1.32)]), _reply([("a", -0.1, -3.0)], "length"))
