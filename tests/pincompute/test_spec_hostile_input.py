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
