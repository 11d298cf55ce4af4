"""Store.page: a sorted listing in pages, kept in order through relists and watch events (property tests
against a sort of the final objects), at the cost of the page rather than of the kind."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pincompute.kube.store import Store

NAMESPACES = ("a", "b", "c")
NAMES = tuple(f"p{i}" for i in range(12))


def obj(ns: str, name: str, app: str = "web", phase: str = "Running") -> dict:
    return {"metadata": {"namespace": ns, "name": name, "labels": {"app": app}}, "status": {"phase": phase}}


def key(o: dict) -> tuple[str, str]:
    return o["metadata"]["namespace"], o["metadata"]["name"]


def walk(store: Store, *, limit: int, **filters) -> list[tuple[str, str]]:
    """Every page from the start, following the last key as the cursor."""
    seen, after = [], None
    while True:
        items, more = store.page("pods", after=after, limit=limit, **filters)
        assert len(items) <= limit and (items or not more)
        seen += [key(o) for o in items]
        if not more:
            return seen
        after = key(items[-1])


events = st.lists(
    st.tuples(
        st.sampled_from(["ADDED", "MODIFIED", "DELETED", "RELIST"]),
        st.sampled_from(NAMESPACES),
        st.sampled_from(NAMES),
        st.sampled_from(["web", "db"]),
        st.sampled_from(["Running", "Pending"]),
    ),
    max_size=60,
)


@settings(max_examples=250, deadline=None)
@given(events, st.integers(1, 7), st.sampled_from([None, *NAMESPACES]))
def test_pages_walk_the_final_objects_in_order_with_each_filter(seq, limit, namespace):
    store, final = Store(ordered=True), {}
    for etype, ns, name, app, phase in seq:
        o = obj(ns, name, app, phase)
        if etype == "RELIST":  # a relist keeps the objects it lists: what the watch had, plus this one
            final[key(o)] = o
            store.replace("pods", list(final.values()))
            continue
        store.apply("pods", etype, o)
        if etype == "DELETED":
            final.pop(key(o), None)
        else:
            final[key(o)] = o

    def expected(match) -> list[tuple[str, str]]:
        return sorted(k for k, o in final.items() if (namespace is None or k[0] == namespace) and match(o))

    assert walk(store, limit=limit, namespace=namespace) == expected(lambda o: True)
    running = walk(store, limit=limit, namespace=namespace, where=lambda o: o["status"]["phase"] == "Running")
    assert running == expected(lambda o: o["status"]["phase"] == "Running")
    db = walk(store, limit=limit, namespace=namespace, label_selector={"app": "db"})
    assert db == expected(lambda o: o["metadata"]["labels"]["app"] == "db")


def test_a_page_reads_about_the_page_not_the_kind():
    store = Store(ordered=True)
    store.replace("pods", [obj("a", f"p{i:05d}") for i in range(20_000)])
    looked: list[dict] = []

    def where(o: dict) -> bool:
        looked.append(o)
        return True

    items, more = store.page("pods", "a", after=("a", "p12000"), limit=100, where=where)

    assert [key(o)[1] for o in items] == [f"p{i:05d}" for i in range(12_001, 12_101)]
    assert more and len(looked) <= 201  # one chunk (2 x limit), never the 20k


def test_a_cursor_between_namespaces_and_past_the_end():
    store = Store(ordered=True)
    store.replace("pods", [obj(ns, n) for ns in NAMESPACES for n in ("x", "y")])

    assert [key(o) for o in store.page("pods", after=("a", "zzz"), limit=2)[0]] == [("b", "x"), ("b", "y")]
    assert store.page("pods", "b", after=("b", "y"), limit=5) == ([], False)
    assert store.page("pods", "c", after=("a", "x"), limit=1)[0] == [obj("c", "x")]
    assert store.page("absent", limit=3) == ([], False)


def test_page_needs_an_ordered_store_and_the_operators_store_stays_unordered():
    store = Store()
    store.replace("pods", [obj("a", "x")])

    with pytest.raises(TypeError):
        store.page("pods")
    assert store.list("pods") == [obj("a", "x")]


def test_a_modified_object_keeps_its_place_and_eviction_still_drops_the_oldest():
    store = Store(ordered=True)
    for name in ("c", "a", "b"):
        store.apply("events", "ADDED", obj("ns", name), max_objects=3)
    store.apply("events", "MODIFIED", obj("ns", "c", phase="Pending"), max_objects=3)

    store.apply("events", "ADDED", obj("ns", "d"), max_objects=3)  # evicts "a", the oldest untouched

    assert [key(o)[1] for o in store.page("events", limit=10)[0]] == ["b", "c", "d"]
