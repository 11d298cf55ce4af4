"""Label and annotation keys are spelled once, and the runtime profile uses the same spellings."""

from pincompute import GROUP, labels
from pincompute.runtime import load_profile

KEYS = {name: value for name, value in vars(labels).items() if name.isupper() and isinstance(value, str)}
ALIASES = {"ZONE_ANNOTATION": "ZONE_LABEL"}  # one key, read as a label or an annotation


def test_platform_keys_live_under_the_api_group():
    own = {name: key for name, key in KEYS.items() if key.startswith("pincompute.io/")}
    assert own and all(key.startswith(f"{GROUP}/") for key in own.values())


def test_no_two_names_for_one_key_except_the_documented_aliases():
    by_key: dict[str, list[str]] = {}
    for name, key in KEYS.items():
        if name not in ALIASES:
            by_key.setdefault(key, []).append(name)
    assert {key: names for key, names in by_key.items() if len(names) > 1} == {}
    assert all(KEYS[alias] == KEYS[target] for alias, target in ALIASES.items())


def test_the_runtime_profile_labels_pods_with_these_keys():
    profile = dict(load_profile().labels)
    platform_keys = {key for key in profile if key.startswith(f"{GROUP}/")}
    assert platform_keys == {
        labels.PROJECT_LABEL,
        labels.WORKLOAD_LABEL,
        labels.KIND_LABEL,
        labels.TIER_LABEL,
        labels.SHARD_LABEL,
    }
    assert profile[labels.MANAGED_BY_LABEL] == f"={labels.MANAGED_BY}"


def test_workload_selector_matches_the_labels_translation_stamps():
    assert labels.workload_selector("PinApp", "web") == f"{labels.KIND_LABEL}=PinApp,{labels.WORKLOAD_LABEL}=web"
