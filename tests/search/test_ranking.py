"""How a name matches what was typed: exact, prefix, a word's prefix, anywhere; nothing when absent."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from search.ranking import WORD_BREAKS, Rank, best, rank
from search.sources import Best


def test_each_rank_in_its_order():
    assert rank("payments-api", "payments-api") is Rank.EXACT
    assert rank("Payments-API", "payments-api") is Rank.EXACT  # case does not matter
    assert rank("payments-api", "pay") is Rank.PREFIX
    assert rank("payments-api", "ap") is Rank.WORD
    assert rank("web-7d9f8.train_job", "tra") is Rank.WORD
    assert rank("payments-api", "ments") is Rank.WITHIN
    assert rank("payments-api", "search") is None
    assert Rank.EXACT < Rank.PREFIX < Rank.WORD < Rank.WITHIN


def test_the_best_of_several_names():
    assert best(("dev1", "ana@example.com", "Ana Lima"), "lima") is Rank.WORD
    assert best(("dev1", "", "Ana Lima"), "dev1") is Rank.EXACT
    assert best(("dev1", "ana@example.com"), "zzz") is None


@given(st.text(alphabet="abc-_.", min_size=1, max_size=12), st.text(alphabet="abc-", min_size=1, max_size=4))
def test_a_rank_is_given_exactly_when_the_name_holds_the_query(name, query):
    found = rank(name, query)
    assert (found is not None) == (query in name.lower())
    if found is Rank.EXACT:
        assert name.lower() == query
    if found is Rank.PREFIX:
        assert name.lower().startswith(query) and name.lower() != query


def _word_rank_by_splitting(name: str, query: str) -> bool:
    """The definition: a word of the name (split at the breaks) starts with the query."""
    return any(word.startswith(query) for word in WORD_BREAKS.split(name.lower()))


@given(st.text(alphabet="ab-_. @", min_size=1, max_size=14), st.text(alphabet="ab-. ", min_size=1, max_size=4))
def test_a_word_rank_means_a_word_of_the_name_starts_with_the_query(name, query):
    found = rank(name, query)
    if found is not None and found >= Rank.WORD:
        assert (found is Rank.WORD) == _word_rank_by_splitting(name, query)


@given(
    st.lists(st.tuples(st.sampled_from(list(Rank)), st.integers(0, 7), st.text("ab", max_size=3)), max_size=60),
    st.integers(1, 8),
)
def test_the_best_kept_are_the_first_of_everything_sorted_though_excluded_ones_are_never_built(offers, size):
    """A source asks ``excludes`` before building a candidate; what is kept is what a full sort would put first."""
    best, every = Best(size), []
    for tie, (found, kind, name) in enumerate(offers):
        candidate = (found, kind, len(name), name, tie, None)
        every.append(candidate)
        if not best.excludes(found, kind):
            best.offer(candidate)
    assert best.kept == sorted(every)[:size]


@given(
    st.lists(st.tuples(st.sampled_from(list(Rank)), st.integers(0, 7), st.text("ab", max_size=3)), max_size=30),
    st.integers(1, 8),
    st.sampled_from(list(Rank)),
    st.integers(0, 7),
)
def test_the_floor_says_exactly_which_ranks_excludes_lets_in(offers, size, found, kind):
    """A source that reads only prefix matches once the floor is ``PREFIX`` misses nothing ``excludes`` would keep."""
    best = Best(size)
    for tie, (r, k, name) in enumerate(offers):
        best.offer((r, k, len(name), name, tie, None))
    floor = best.floor(kind)

    assert best.excludes(found, kind) == (floor is None or found > floor)
