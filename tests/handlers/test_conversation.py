"""Reading a reply's calls back: arguments cut off by the token cap are closed where they stopped."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.handlers.conversation import partial_object


@pytest.mark.parametrize("text, value", [
    ('{"city": "Par', {"city": "Par"}),
    ('{"city": "Paris", "un', {"city": "Paris"}),
    ('{"city": "Paris", "unit":', {"city": "Paris"}),
    ('{"list": [1, 2', {"list": [1, 2]}),
    ('{"o": {"k": "v"}, "l": ["x', {"o": {"k": "v"}, "l": ["x"]}),
    ('{"q": "a \\\\', {"q": "a \\"}),
    ('{"ci', {}),
    ("{", {}),
    ("", {}),
])
def test_a_cut_object_is_closed_where_it_stopped(text: str, value: Any) -> None:
    assert partial_object(text) == value
