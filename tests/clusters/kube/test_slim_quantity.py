import copy
import json

import pytest

from clusters.kube.slim import LAST_APPLIED, slim
from pincompute import quantity
from tests.support.pods import realistic_pod


def test_slim_removes_noise_and_keeps_what_pages_read():
    pod = realistic_pod(1)
    before = copy.deepcopy(pod)

    out = slim(pod)

    assert pod == before  # pure: the input may be shared by other readers
    meta = out["metadata"]
    assert "managedFields" not in meta and "selfLink" not in meta
    assert LAST_APPLIED not in meta["annotations"]
    assert meta["generateName"] == "web-7d4b9c8f6-"
    assert meta["labels"] == pod["metadata"]["labels"]
    assert meta["ownerReferences"] == pod["metadata"]["ownerReferences"]
    assert all("lastProbeTime" not in c for c in out["status"]["conditions"])
    assert out["spec"] == pod["spec"]


def test_slim_reduces_a_realistic_pod_by_more_than_half():
    pod = realistic_pod(1)

    before, after = len(json.dumps(pod)), len(json.dumps(slim(pod)))

    print(f"realistic pod: {before} -> {after} bytes ({100 * (1 - after / before):.0f}% smaller)")
    assert after < before * 0.5


def test_slim_tolerates_minimal_and_odd_objects():
    assert slim({}) == {}
    assert slim({"metadata": {"name": "x"}}) == {"metadata": {"name": "x"}}
    assert slim({"status": {"conditions": None}}) == {"status": {"conditions": None}}


@pytest.mark.parametrize(
    ("text", "millicores"),
    [
        ("500m", 500),
        ("2", 2000),
        ("0.5", 500),
        ("1.25", 1250),
        ("0.1m", 1),
        ("1e3", 1_000_000),
        (3, 3000),
    ],
)
def test_cpu_millicores(text, millicores):
    assert quantity.parse_cpu(text) == millicores


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("128Mi", 128 * 2**20),
        ("1Gi", 2**30),
        ("1e3", 1000),
        ("1k", 1000),
        ("1M", 10**6),
        ("1.5Gi", 3 * 2**29),
        ("100m", 1),
        ("2E", 2 * 10**18),
        ("1Ki", 1024),
        ("0", 0),
        (".5Ki", 512),
    ],
)
def test_memory_and_counts(text, value):
    assert quantity.parse_memory(text) == value


@pytest.mark.parametrize("bad", ["", "abc", "1Kb", "--1", "1.2.3", "Mi", True])
def test_garbage_is_refused(bad):
    with pytest.raises(ValueError):
        quantity.parse_quantity(bad)
