"""``workloads.api.encoded``: a page whose results carry their JSON texts renders to the very bytes DRF's
``JSONRenderer`` gives for the plain page (any JSON values, any keys before ``results``, escapes included), and
anything else renders as DRF renders it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer

from workloads.api.encoded import Encoded, PageJSONRenderer, encode

TRICKY = st.sampled_from(["", "a\u2028b", "\u2029", "é", '"quoted"', "back\\slash", "\x00", "😀", "</script>"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | TRICKY
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5) | TRICKY, inner, max_size=3),
    max_leaves=12,
)
ITEMS = st.lists(st.dictionaries(st.text(max_size=6) | TRICKY, VALUES, max_size=4), max_size=6)
OTHERS = st.dictionaries(st.sampled_from(["next", "problems", "count", "\u2028"]), VALUES, max_size=3)
ACCEPT = st.sampled_from([None, "application/json", "application/json; indent=2", "application/json; indent=0"])


def pages(others: dict[str, Any], items: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    encoded = Encoded(items, [encode(item) for item in items])
    return {**others, "results": encoded}, {**others, "results": list(items)}


@given(others=OTHERS, items=ITEMS, accept=ACCEPT)
def test_a_spliced_page_is_the_bytes_json_renderer_gives(others, items, accept):
    spliced, plain = pages(others, items)

    assert PageJSONRenderer().render(spliced, accept) == JSONRenderer().render(plain, accept)


@given(items=ITEMS)
def test_results_not_last_or_not_encoded_render_as_drf_renders(items):
    first, _ = pages({}, items)
    not_last = {"results": first["results"], "next": None}

    assert PageJSONRenderer().render(not_last) == JSONRenderer().render({"results": list(items), "next": None})
    assert PageJSONRenderer().render({"results": list(items)}) == JSONRenderer().render({"results": list(items)})


def test_an_encoded_list_is_the_list_of_its_items_with_one_text_each():
    page = Encoded([{"a": 1}], ['{"a":1}'])

    assert page == [{"a": 1}] and page.texts == ['{"a":1}']
    with pytest.raises(ValueError):
        Encoded([{"a": 1}], [])
