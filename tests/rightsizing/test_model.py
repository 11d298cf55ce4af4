"""The right-sizing model (pure): property tests of the VPA-style recommendation, its rounding, minimum, margin,
limit cap and confidence, the saving arithmetic, and the document an apply submits."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from rightsizing.model import (
    CPU_STEP_MILLI,
    DAY,
    MARGIN,
    MEMORY_STEP,
    MIB,
    MIN_CPU_MILLI,
    MIN_MEMORY,
    History,
    Recommendation,
    apply_to_document,
    confidence_of,
    monthly_saving,
    recommend,
)

cores = st.floats(min_value=0, max_value=256, allow_nan=False)
memory = st.floats(min_value=0, max_value=float(1 << 40), allow_nan=False)
seconds = st.floats(min_value=1, max_value=30 * DAY, allow_nan=False)


@given(cores, memory, seconds)
def test_a_recommendation_covers_use_plus_the_margin_within_one_rounding_step(cpu, mem, span):
    rec = recommend(History(cpu, mem, span))

    assert rec is not None
    wanted_cpu, wanted_mem = cpu * 1000 * (1 + MARGIN), mem * (1 + MARGIN)
    assert rec.cpu_milli >= wanted_cpu - 1e-6 and rec.cpu_milli >= MIN_CPU_MILLI
    assert rec.cpu_milli < max(wanted_cpu, MIN_CPU_MILLI) + CPU_STEP_MILLI
    assert rec.memory_bytes >= wanted_mem - 1 and rec.memory_bytes >= MIN_MEMORY
    assert rec.memory_bytes < max(wanted_mem, MIN_MEMORY) + MEMORY_STEP
    assert rec.cpu_milli % CPU_STEP_MILLI == 0 and rec.memory_bytes % MEMORY_STEP == 0
    assert not rec.capped


@given(cores, cores, memory, seconds)
def test_more_use_never_gets_a_smaller_recommendation(a, b, mem, span):
    low, high = sorted((a, b))
    assert recommend(History(low, mem, span)).cpu_milli <= recommend(History(high, mem, span)).cpu_milli


@given(cores, memory, seconds, st.integers(1, 64_000), st.integers(1, 1 << 40))
def test_a_recommendation_never_passes_the_limit_and_says_when_it_is_held_there(cpu, mem, span, cpu_lim, mem_lim):
    rec = recommend(History(cpu, mem, span), cpu_limit_milli=cpu_lim, memory_limit_bytes=mem_lim)

    assert rec.cpu_milli <= cpu_lim and rec.memory_bytes <= mem_lim
    unbounded = recommend(History(cpu, mem, span))
    assert ("cpu" in rec.capped) == (unbounded.cpu_milli > cpu_lim)
    assert ("memory" in rec.capped) == (unbounded.memory_bytes > mem_lim)


@given(st.one_of(st.none(), cores), st.one_of(st.none(), memory), st.floats(min_value=-DAY, max_value=0))
def test_no_history_gets_no_recommendation(cpu, mem, span):
    assert recommend(History(None, mem, DAY)) is None
    assert recommend(History(cpu, None, DAY)) is None
    assert recommend(History(cpu, mem, span)) is None


@given(seconds, seconds)
def test_confidence_grows_with_history(a, b):
    order = ("low", "medium", "high")
    short, long = sorted((a, b))
    assert order.index(confidence_of(short)[0]) <= order.index(confidence_of(long)[0])
    assert confidence_of(short)[1] == short / DAY


def test_confidence_levels_and_a_tenth_of_a_request():
    assert [confidence_of(s)[0] for s in (60, DAY - 1, DAY, 7 * DAY - 1, 7 * DAY)] == [
        "low", "low", "medium", "medium", "high",
    ]  # fmt: skip
    rec = recommend(History(0.1, 100 * MIB, 3600))  # a container asking 1 CPU and 1Gi, using a tenth
    assert (rec.cpu, rec.memory, rec.confidence) == ("115m", "116Mi", "low")


@given(st.floats(-64, 64, allow_nan=False), st.floats(-64, 64, allow_nan=False), st.integers(0, 50))
def test_the_saving_is_the_difference_at_the_tiers_prices_for_a_month(cpu, gib, pods):
    saving = monthly_saving(cpu, gib, pods, Decimal("0.04"), Decimal("0.005"))
    exact = (Decimal(str(cpu)) * Decimal("0.04") + Decimal(str(gib)) * Decimal("0.005")) * pods * 730
    assert abs(saving - exact) <= Decimal("0.005")
    assert (saving < 0) <= (exact < 0)


def test_applying_sets_only_the_recommended_containers_requests_and_keeps_the_rest():
    doc = {
        "kind": "PinApp",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "template": {"containers": [
            {"name": "web", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}}},
            {"name": "side", "resources": {"requests": {"cpu": "200m"}}},
            {"name": "bare"},
        ]}},
    }  # fmt: skip
    recs = {"web": Recommendation(115, 116 * MIB, "low", 0.1), "bare": Recommendation(10, 16 * MIB, "low", 0.1)}

    out = apply_to_document(doc, recs)

    web, side, bare = out["spec"]["template"]["containers"]
    assert web["resources"] == {"requests": {"cpu": "115m", "memory": "116Mi"}, "limits": {"memory": "2Gi"}}
    assert side == doc["spec"]["template"]["containers"][1]
    assert bare["resources"] == {"requests": {"cpu": "10m", "memory": "16Mi"}}
    assert doc["spec"]["template"]["containers"][0]["resources"]["requests"]["cpu"] == "1"  # the input untouched
    assert out["spec"]["replicas"] == 2
