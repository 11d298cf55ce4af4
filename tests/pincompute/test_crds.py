import copy

import jsonschema
import pytest

from pincompute.crds import _EXTRA_COLUMNS, crd_manifests, platform_crd_manifests, structural_problems
from pincompute.kinds import KINDS as REGISTRY
from pincompute.kinds import InstalledOn
from pincompute.specs import KINDS
from tests.support.examples import EXAMPLES, example

CRDS = {crd["spec"]["names"]["kind"]: crd for crd in crd_manifests()}


def schema_of(kind):
    return CRDS[kind]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def test_every_kind_has_one_crd():
    assert set(CRDS) == set(KINDS)
    assert len(crd_manifests()) == len(KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_crd_schema_is_structural(kind):
    assert structural_problems(schema_of(kind)) == []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_crd_shape(kind):
    crd = CRDS[kind]
    names = crd["spec"]["names"]
    assert crd["metadata"]["name"] == f"{names['plural']}.pincompute.io"
    assert names["categories"] == ["pincompute"]
    assert names["shortNames"]
    version = crd["spec"]["versions"][0]
    assert version["subresources"]["status"] == {}
    columns = [c["name"] for c in version["additionalPrinterColumns"]]
    assert columns[:4] == ["Admitted", "Scheduled", "Ready", "Tier"]  # the first two: host objects only
    assert columns[-1] == "Age"


def test_scale_subresource_for_replicated_kinds():
    scalable = {k for k, crd in CRDS.items() if "scale" in crd["spec"]["versions"][0]["subresources"]}
    assert scalable == {"PinApp", "PinterestService"}
    scale = CRDS["PinApp"]["spec"]["versions"][0]["subresources"]["scale"]
    assert scale["specReplicasPath"] == ".spec.replicas"
    assert scale["statusReplicasPath"] == ".status.replicas"


def test_short_names_come_from_the_registry_and_are_unique():
    shorts = [short for crd in CRDS.values() for short in crd["spec"]["names"]["shortNames"]]
    assert shorts == [short for info in REGISTRY.values() for short in info.short_names]
    assert len(set(shorts)) == len(shorts)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_crd_names_come_from_the_registry(kind):
    crd, info = CRDS[kind], REGISTRY[kind]
    names = crd["spec"]["names"]
    assert (crd["metadata"]["name"], crd["spec"]["group"]) == (info.crd_name, info.group)
    assert (names["plural"], names["singular"], names["listKind"]) == (info.plural, info.singular, info.list_kind)
    assert crd["spec"]["versions"][0]["name"] == info.version
    assert ("scale" in crd["spec"]["versions"][0]["subresources"]) == info.scalable


def test_printer_columns_name_only_registered_kinds():
    assert set(_EXTRA_COLUMNS) <= set(REGISTRY)


def free_form_paths(schema, path=""):
    found = [path] if schema.get("x-kubernetes-preserve-unknown-fields") else []
    for name, child in (schema.get("properties") or {}).items():
        found += free_form_paths(child, f"{path}.{name}")
    if "items" in schema:
        found += free_form_paths(schema["items"], f"{path}[]")
    return found


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_free_form_only_where_meant(kind):
    allowed = (".livenessProbe", ".readinessProbe", ".startupProbe", ".valueFrom", ".volumes[]", ".securityContext")
    allowed += (".volumes[].secret", ".volumes[].configMap")  # a Secret's or ConfigMap's items, defaultMode
    paths = free_form_paths(schema_of(kind))
    assert all(p.endswith(allowed) for p in paths), paths


def test_checker_flags_non_structural_schemas():
    bad = {
        "type": "object",
        "properties": {
            "a": {"properties": {"b": {"type": "string"}}},
            "c": {
                "type": "object",
                "properties": {"d": {"type": "string"}},
                "additionalProperties": {"type": "string"},
            },
            "e": {"type": "array"},
            "f": {"type": "string", "x-kubernetes-int-or-string": True},
            "g": {"$ref": "#/definitions/x", "type": "string"},
        },
    }
    problems = structural_problems(bad)
    assert len(problems) == 6
    assert any(p.startswith("a:") for p in problems)
    assert any(p.startswith("g:") for p in problems)


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_examples_validate_against_the_crd_schema(kind):
    jsonschema.validate(example(kind), schema_of(kind))


def test_crd_schema_rejects_an_unknown_field_like_validate_does():
    manifest = example("PinPod")
    manifest["spec"]["containers"][0]["imagePolicy"] = "x"
    schema = copy.deepcopy(schema_of("PinPod"))
    container = schema["properties"]["spec"]["properties"]["containers"]["items"]
    container["additionalProperties"] = False  # the apiserver prunes; jsonschema needs telling
    del container["properties"]["livenessProbe"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(manifest, schema)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_crd_round_trips_through_the_kubernetes_model(kind):
    from kubernetes.client import ApiClient

    client = ApiClient()
    model = client._ApiClient__deserialize(CRDS[kind], "V1CustomResourceDefinition")
    assert client.sanitize_for_serialization(model) == CRDS[kind]


def undescribed(schema, path=""):
    """Every property below ``schema`` without a description (the root's metadata is the apiserver's ObjectMeta)."""
    found = []
    for name, child in (schema.get("properties") or {}).items():
        child_path = f"{path}.{name}"
        if not child.get("description") and child_path != ".metadata":
            found.append(child_path)
        found += undescribed(child, child_path)
    if isinstance(schema.get("items"), dict):
        found += undescribed(schema["items"], f"{path}[]")
    return found


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_field_and_the_kind_itself_explain_themselves(kind):
    schema = schema_of(kind)

    assert undescribed(schema) == []
    assert schema["description"].startswith(REGISTRY[kind].description)
    fields = descriptions(schema)[1:]  # concise: a line of `kubectl explain`, not a page
    assert all(len(text) <= 160 for text in fields), max(fields, key=len)


def descriptions(schema):
    found = [schema["description"]] if "description" in schema else []
    for child in (schema.get("properties") or {}).values():
        found += descriptions(child)
    if isinstance(schema.get("items"), dict):
        found += descriptions(schema["items"])
    return found


def test_conditions_are_lists_keyed_by_type_and_times_are_date_times():
    status = schema_of("PinApp")["properties"]["status"]["properties"]
    conditions = status["conditions"]

    assert (conditions["x-kubernetes-list-type"], conditions["x-kubernetes-list-map-keys"]) == ("map", ["type"])
    assert "type" in conditions["items"]["required"]
    assert status["shards"]["items"]["properties"]["conditions"]["x-kubernetes-list-type"] == "map"
    assert conditions["items"]["properties"]["lastTransitionTime"]["format"] == "date-time"
    assert status["placement"]["properties"]["decidedAt"]["format"] == "date-time"
    operations = schema_of("PinApp")["properties"]["spec"]["properties"]["operations"]["properties"]
    assert operations["restartedAt"]["format"] == "date-time"


def test_int_or_string_fields_say_both_types():
    replicas = schema_of("PinApp")["properties"]["spec"]["properties"]["rollout"]["properties"]["maxSurge"]

    assert replicas["x-kubernetes-int-or-string"] is True
    assert replicas["anyOf"] == [{"type": "integer"}, {"type": "string"}]


def test_checker_flags_a_map_list_whose_key_is_optional_and_a_foreign_any_of():
    bad = {
        "type": "object",
        "properties": {
            "conditions": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["type"],
                "items": {"type": "object", "properties": {"type": {"type": "string"}}},
            },
            "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}], "x-kubernetes-int-or-string": True},
        },
    }

    problems = structural_problems(bad)

    assert problems == [
        "conditions: the map key 'type' must be required in its items or have a default",
        "either: anyOf is not generated by this core and is not checked",
    ]


@pytest.mark.parametrize("crd", platform_crd_manifests(InstalledOn.HOST), ids=lambda crd: crd["spec"]["names"]["kind"])
def test_the_platforms_own_kinds_explain_themselves_too(crd):
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]

    assert undescribed(schema) == []
    assert schema["description"]
