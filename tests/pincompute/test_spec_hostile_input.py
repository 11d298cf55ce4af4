"""Validation answers every input with field errors, never an exception (a crash here is a 500 in the portal)."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pincompute.specs import KINDS, validate
from tests.support.examples import example

# Anything yaml.safe_load or json.loads can return, including YAML's non-string keys.
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8)
keys = st.text(max_size=8) | st.integers() | st.booleans() | st.none()
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=12
)


def test_non_string_label_keys_are_field_errors():
    manifest = example("PinPod")
    manifest["metadata"]["labels"] = {1: "x", None: "y"}

    errors = validate(manifest)

    assert {e.path for e in errors} == {"metadata.labels.1", "metadata.labels.None"}
    assert all("string" in e.message for e in errors)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(sorted(KINDS)),
    where=st.sampled_from(["", "metadata", "spec", "spec.containers"]),
    value=documents,
)
def test_any_decoded_document_anywhere_gives_errors_not_exceptions(kind, where, value):
    manifest = copy.deepcopy(example(kind))
    if where == "":
        manifest = value
    elif where == "spec.containers":
        manifest["spec"].setdefault("containers", [{}])
        if isinstance(manifest["spec"]["containers"], list) and manifest["spec"]["containers"]:
            manifest["spec"]["containers"][0] = value
    else:
        manifest[where] = value

    errors = validate(manifest)

    assert isinstance(errors, list)


def test_a_quantity_beyond_what_python_parses_is_a_field_error():
    manifest = example("PinPod")
    requests = manifest["spec"]["containers"][0]["resources"]["requests"]
    requests["cpu"], requests["memory"] = "9" * 5000, 16**5000

    errors = {e.path: e.message for e in validate(manifest)}

    assert "64 characters at most" in errors["spec.containers[0].resources.requests.cpu"]
    assert "largest quantity" in errors["spec.containers[0].resources.requests.memory"]


@pytest.mark.parametrize("value", ["web\n", "a\n", "app.local\n"])
def test_a_name_with_a_trailing_newline_is_no_name(value):
    """``$`` also matches before a final newline: the checks match the whole text."""
    from pincompute.specs.checks import dns_label, dns_subdomain

    assert dns_subdomain(value) is not None and dns_label(value.split(".")[0] + "\n") is not None


# What the examples leave out but cross-field rules read: volumes, env, container ports, a Service's ports, an ingress,
# schedule windows. Each kind's example gets the ones its schema has.
RICH_POD = {
    "volumes": [{"name": "data", "emptyDir": {}}],
    "containers": [
        {
            "name": "app",
            "image": "registry.local/app:1",
            "env": [{"name": "MODE", "value": "x"}],
            "ports": [{"name": "http", "containerPort": 8080}],
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        }
    ],
}
RICH = {
    "ports": [{"name": "http", "port": 80, "targetPort": "http"}],
    "ingress": {"host": "web.example.com", "port": "http"},
    "schedules": [
        {"name": "day", "cron": "0 8 * * *", "minReplicas": 2, "maxReplicas": 4, "durationMinutes": 60},
        {"name": "night", "cron": "0 20 * * *", "minReplicas": 1, "maxReplicas": 2, "durationMinutes": 60},
    ],
    "service": {"ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
}


def rich(kind):
    manifest = example(kind)
    spec = manifest["spec"]
    fields = {f.name for f in KINDS[kind].schema.fields}
    pod = spec.get("template", spec)
    if "containers" in pod:
        pod.update(copy.deepcopy(RICH_POD))
    spec.update({k: copy.deepcopy(v) for k, v in RICH.items() if k in fields})
    return manifest


def paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths(child, (*path, index))


def replaced(manifest, path, value):
    manifest = copy.deepcopy(manifest)
    target = manifest
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return manifest


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_any_field_holding_an_object_or_a_list_gives_errors_not_exceptions(kind):
    manifest = rich(kind)
    assert validate(manifest) == []  # the rich document is valid: every rule below reads a well-formed rest

    for path in list(paths(manifest["spec"], ("spec",)))[1:]:
        for value in ({"a": 1}, [1], None, 1.5, True):
            errors = validate(replaced(manifest, path, value))

            assert isinstance(errors, list), path
