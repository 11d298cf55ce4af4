"""The store's name index (pincompute/kube/name_index.py) finds exactly the names a scan finds, each once, also as
the store's keys come and go (the index is rebuilt after its set of keys changed, not after an object changed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pincompute.kube.name_index import NameIndex
from pincompute.kube.store import Store

NAMES = st.text("ab-", min_size=1, max_size=6)


@given(st.lists(NAMES, unique=True, max_size=40), st.text("ab-\n", max_size=3), st.booleans())
def test_the_index_finds_what_a_scan_finds(names, needle, prefix):
    keys = [(f"ns{i % 3}", n) for i, n in enumerate(names)]

    found = NameIndex(keys, 0).matching(needle, prefix=prefix)

    held = (lambda n: n.startswith(needle)) if prefix else (lambda n: needle in n)
    assert found == [k for k in keys if needle and "\n" not in needle and held(k[1])]


def pod(name: str, version: int = 1) -> dict:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": str(version)}}


@given(st.lists(st.tuples(st.sampled_from(["ADDED", "MODIFIED", "DELETED", "search"]), NAMES), max_size=40))
def test_the_stores_index_follows_every_key_that_comes_and_goes(steps):
    store, held = Store(), set()
    for step, name in steps:
        if step == "search":
            assert sorted(store.matching_keys("pods", name[:2])) == sorted(("ns", n) for n in held if name[:2] in n)
            continue
        store.apply("pods", step, pod(name))
        held = held - {name} if step == "DELETED" else held | {name}
    assert sorted(store.matching_keys("pods", "a", prefix=True)) == sorted(("ns", n) for n in held if n[0] == "a")
