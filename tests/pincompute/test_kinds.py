"""The one kind registry: consistent with itself, with the specs and with what translation emits."""

import pytest

from pincompute import API_VERSION
from pincompute.kinds import KINDS, Category, default_tier
from pincompute.runtime import load_profile
from pincompute.specs import KINDS as SPECS
from pincompute.specs import parse
from pincompute.tiers import DEFAULT_TIER
from pincompute.translate import KUBEFLOW_PYTORCH, KUBEFLOW_TF, Placement, translate
from tests.support.examples import EXAMPLES, example

PROFILE = load_profile()
HERE = Placement(cluster="member-a", zone="us-east-1a", region="us-east-1", shard_index=0, shard_count=1)


def test_there_are_eight_kinds_each_with_a_spec_and_an_example():
    assert len(KINDS) == 8
    assert list(SPECS) == list(KINDS)
    assert all(SPECS[kind].info is info for kind, info in KINDS.items())
    assert set(EXAMPLES) == set(KINDS)


@pytest.mark.parametrize("kind", list(KINDS))
def test_plural_is_the_lower_case_kind_plus_s(kind):
    # The rule a hand-typed "pinterestrainingjobs" broke; a kind whose plural is irregular must say so here.
    info = KINDS[kind]
    assert info.plural == f"{kind.lower()}s"
    assert info.collection_path == f"/apis/{API_VERSION}/{info.plural}"


def test_kinds_plurals_and_short_names_are_unique():
    plurals = [info.plural for info in KINDS.values()]
    shorts = [short for info in KINDS.values() for short in info.short_names]
    assert len(set(plurals)) == len(plurals)
    assert len(set(shorts)) == len(shorts) and all(shorts)


def test_every_kind_says_what_it_is_for():
    for info in KINDS.values():
        assert info.title and info.description.endswith(".") and info.becomes and info.native_kinds
        assert isinstance(info.category, Category)
    assert {info.category for info in KINDS.values()} == set(Category)


def test_only_the_scaler_runs_no_pods_and_only_replicated_kinds_scale():
    assert [k for k, info in KINDS.items() if not info.runs_pods] == ["PinScaler"]
    assert [k for k, info in KINDS.items() if info.scalable] == ["PinApp", "PinterestService"]


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(
    "capabilities", [frozenset(), frozenset({KUBEFLOW_PYTORCH, KUBEFLOW_TF})], ids=["plain", "kubeflow"]
)
def test_translation_emits_only_the_native_kinds_the_registry_names(kind, capabilities):
    emitted = {obj["kind"] for obj in translate(example(kind), PROFILE, HERE, capabilities=capabilities)}
    assert emitted and emitted <= set(KINDS[kind].native_kinds)


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_spec_without_tier_gets_the_kinds_default_tier(kind):
    manifest = example(kind)
    del manifest["spec"]["tier"]
    assert parse(manifest).meta.tier is KINDS[kind].default_tier


def test_default_tier_of_an_unknown_kind_is_the_platform_default():
    assert default_tier("NoSuchKind") is DEFAULT_TIER
    assert default_tier(None) is DEFAULT_TIER
