from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pincompute.quantity import (
    MAX_VALUE,
    QuantityError,
    Resources,
    format_cpu,
    format_memory,
    parse_cpu,
    parse_gpu,
    parse_memory,
    parse_quantity,
)

resources = st.builds(Resources, st.integers(0, 10**7), st.integers(0, 2**50), st.integers(0, 64))


@pytest.mark.parametrize(
    ("text", "millis"),
    [("500m", 500), ("2", 2000), ("0.5", 500), ("1.25", 1250), ("1e3", 1_000_000), ("0.0001", 1), (3, 3000)],
)
def test_parse_cpu(text, millis):
    assert parse_cpu(text) == millis


@pytest.mark.parametrize(
    ("text", "num_bytes"),
    [("512Mi", 512 * 2**20), ("1G", 10**9), ("1e3", 1000), ("1Gi", 2**30), ("1.5Ki", 1536), ("128", 128)],
)
def test_parse_memory(text, num_bytes):
    assert parse_memory(text) == num_bytes


@pytest.mark.parametrize("bad", ["", "abc", "-1", "1Zi", "1.2.3", "1 Gi"])
def test_parse_quantity_rejects_garbage(bad):
    with pytest.raises(QuantityError):
        parse_quantity(bad)


def test_gpu_must_be_whole():
    assert parse_gpu("2") == 2
    with pytest.raises(QuantityError):
        parse_gpu("0.5")


def test_formats_are_shortest_exact():
    assert format_cpu(2000) == "2"
    assert format_cpu(1500) == "1500m"
    assert format_memory(512 * 2**20) == "512Mi"
    assert format_memory(10**9) == "1G"
    assert format_memory(1000001) == "1000001"


@given(st.integers(0, 10**12))
def test_cpu_round_trip(millis):
    assert parse_cpu(format_cpu(millis)) == millis


@given(st.integers(0, 2**62))
def test_memory_round_trip(num_bytes):
    assert parse_memory(format_memory(num_bytes)) == num_bytes


@given(resources)
def test_resources_k8s_round_trip(res):
    assert Resources.from_k8s(res.to_k8s()) == res


@given(resources, resources)
def test_resources_arithmetic(a, b):
    assert (a + b) - b == a
    assert a * 3 == a + a + a
    assert a.fits_within(a + b)
    over = (a + b).exceeded_by(a)
    assert all(v > 0 for v in over.values())
    assert set(over) == {k for k, v in b.amounts().items() if v > 0}


def test_exceeded_by_names_resources():
    assert Resources(2000, 10, 1).exceeded_by(Resources(1500, 10, 0)) == {"cpu": 500, "gpu": 1}


def test_parse_quantity_is_exact():
    assert parse_quantity("0.1") * 3 == Fraction(3, 10)


@pytest.mark.parametrize(
    "value",
    ["9" * 5000, "0." + "1" * 5000, "9" * 4000 + "Ei", "1" * 65, 10**5000, -(10**5000), 16**5000, 1e300, "1e30", "8Ei"],
    ids=[
        "5000-digits",
        "5000-decimals",
        "4000-digits-Ei",
        "65-chars",
        "int-5000",
        "neg-int-5000",
        "hex",
        "1e300",
        "1e30",
        "8Ei",
    ],
)
def test_a_quantity_too_long_or_too_large_is_a_quantity_error_never_a_plain_value_error(value):
    with pytest.raises(QuantityError) as caught:
        parse_cpu(value)

    assert len(str(caught.value)) < 120


def test_the_largest_quantity_parses_and_formats_both_ways():
    assert parse_memory(MAX_VALUE) == MAX_VALUE and parse_memory(str(MAX_VALUE)) == MAX_VALUE
    assert parse_cpu(format_cpu(parse_cpu(MAX_VALUE))) == MAX_VALUE * 1000
