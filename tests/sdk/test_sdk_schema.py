"""The SDK's dataclasses against the portal's OpenAPI schema (``/api/schema/``, drf-spectacular, as served): every
model's fields are exactly its component's properties (wire names), each field's type is the property's (string,
integer, boolean, array of, map of, a $ref to the model of that component, anything), a nullable property is
``X | None`` in the SDK and only a nullable one is (or one that may be absent, None standing for "not sent"), and a
property that may be absent has a default. Then each model
reads a value generated from its component and writes it back unchanged. A drift on either side fails here."""

from __future__ import annotations

import dataclasses
import types
from typing import Any, Union, get_args, get_origin, get_type_hints

import pytest
import yaml
from pinconsole_sdk import models, preview_models
from pinconsole_sdk.errors import ConflictError, InvalidError, error_from_response
from pinconsole_sdk.models import MODELS as WORKLOAD_MODELS
from pinconsole_sdk.models import Model, wire_name
from pinconsole_sdk.preview_models import PREVIEW_MODELS

from workloads.api.spec_schemas import TYPED_WORKLOAD, WORKLOAD

Schema = dict[str, Any]


@pytest.fixture(scope="module")
def components(django_db_blocker) -> dict[str, Schema]:
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/schema/")
    assert response.status_code == 200
    return yaml.load(response.content, Loader=yaml.CSafeLoader)["components"]["schemas"]


MODELS = (*WORKLOAD_MODELS, *PREVIEW_MODELS)
BY_COMPONENT = {model.schema: model for model in MODELS}


def resolve(prop: Schema, components: dict[str, Schema]) -> tuple[Schema, bool]:
    """The property's own schema (a lone ``allOf`` and ``$ref`` followed) and whether it is nullable."""
    nullable = bool(prop.get("nullable"))
    if "allOf" in prop and len(prop["allOf"]) == 1:
        prop = {**prop["allOf"][0], **{k: v for k, v in prop.items() if k != "allOf"}}
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[1]
        name = WORKLOAD if name == TYPED_WORKLOAD else name  # the kinds' union: the SDK reads any kind's spec as JSON
        target = components[name]
        nullable = nullable or bool(target.get("nullable"))
        if "enum" in target:  # an enum component: its values' type
            return {"type": target.get("type", "string"), "enum": target["enum"]}, nullable
        return {"$ref": name}, nullable
    return prop, nullable


def unwrap_optional(tp: Any) -> tuple[Any, bool]:
    if get_origin(tp) in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        assert len(args) == 1, f"{tp}: only X | None unions are expected"
        return args[0], True
    return tp, False


def mismatch(tp: Any, prop: Schema, components: dict[str, Schema], where: str) -> list[str]:
    """What differs between a Python type and a (resolved, non-null) property schema."""
    if "$ref" in prop:
        model = BY_COMPONENT.get(prop["$ref"])
        if model is None:
            return [f"{where}: the SDK has no model for component {prop['$ref']}"]
        return [] if tp is model else [f"{where}: {tp} is not {model.__name__} ({prop['$ref']})"]
    kind = prop.get("type")
    simple = {"string": str, "integer": int, "boolean": bool, "number": float}
    if kind in simple:
        return [] if tp is simple[kind] else [f"{where}: {tp} for a {kind}"]
    if kind == "array":
        if get_origin(tp) is not list:
            return [f"{where}: {tp} for an array"]
        item, item_nullable = resolve(prop["items"], components)
        inner, optional = unwrap_optional(get_args(tp)[0])
        problems = [] if optional == item_nullable else [f"{where}[]: nullable {item_nullable}, SDK {optional}"]
        return problems + mismatch(inner, item, components, where + "[]")
    if kind == "object" or not kind:
        if "additionalProperties" in prop and prop["additionalProperties"] not in (True, {}):
            if get_origin(tp) is not dict:
                return [f"{where}: {tp} for a map"]
            value, _ = resolve(prop["additionalProperties"], components)
            return mismatch(get_args(tp)[1], value, components, where + "{}")
        if not kind and not prop.get("properties"):  # anything (a spec)
            return [] if tp is Any or get_origin(tp) is dict else [f"{where}: {tp} for any JSON value"]
    return [f"{where}: no rule for {prop}"]


def example(prop: Schema, components: dict[str, Schema], nullable: bool, depth: int, *, full: bool) -> Any:
    """A value of the property's schema: null when nullable and ``depth`` is odd; ``full``: the optional too."""
    if nullable and depth % 2:
        return None
    if "$ref" in prop:
        return instance(components[prop["$ref"]], components, depth + 1, full=full)
    if "enum" in prop:
        return prop["enum"][-1]
    kind = prop.get("type")
    if kind == "string":
        return f"s{depth}"
    if kind == "integer":
        return 7 + depth
    if kind == "boolean":
        return True
    if kind == "array":
        item, item_nullable = resolve(prop["items"], components)
        return [example(item, components, item_nullable, depth + 1, full=full)]
    if "additionalProperties" in prop and prop["additionalProperties"] not in (True, {}):
        value, _ = resolve(prop["additionalProperties"], components)
        return {"k": example(value, components, False, depth + 1, full=full)}
    return {"any": [1, {"nested": None}]}


def instance(component: Schema, components: dict[str, Schema], depth: int = 0, *, full: bool = True) -> Schema:
    required = set(component.get("required") or [])
    out = {}
    for name, raw in component["properties"].items():
        if name in required or full:
            prop, nullable = resolve(raw, components)
            out[name] = example(prop, components, nullable, depth, full=full)
    return out


def test_every_model_names_a_component_and_every_component_the_sdk_reads_has_a_model(components):
    assert {m.schema for m in MODELS} <= set(components), sorted({m.schema for m in MODELS} - set(components))
    for module, listed in ((models, WORKLOAD_MODELS), (preview_models, PREVIEW_MODELS)):
        defined = {
            name
            for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, Model) and value.__module__ == module.__name__
        }
        assert defined - {"Model"} == {m.__name__ for m in listed}, module.__name__


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_the_model_matches_its_component(model, components):
    component = components[model.schema]
    required = set(component.get("required") or [])
    hints = get_type_hints(model)
    fields = {wire_name(f): f for f in dataclasses.fields(model)}

    assert set(fields) == set(component["properties"]), (model.__name__, model.schema)
    problems = []
    for name, f in fields.items():
        prop, nullable = resolve(component["properties"][name], components)
        tp, optional = unwrap_optional(hints[f.name])
        absent = name not in required and name in model.omit_none  # None stands for "not sent"
        if optional != nullable and not (optional and absent):
            problems.append(f"{name}: nullable in the schema {nullable}, in the SDK {optional}")
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if name not in required and not has_default:
            problems.append(f"{name}: may be absent (not required) but the SDK field has no default")
        problems += mismatch(tp, prop, components, name)
    assert problems == [], f"{model.__name__} vs {model.schema}"


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("full", [True, False], ids=["every-property", "required-only"])
def test_the_model_reads_and_writes_its_component_unchanged(model, full, components):
    value = instance(components[model.schema], components, full=full)

    read = model.from_dict(value)

    assert read.to_dict() == value if full else {k: v for k, v in read.to_dict().items() if k in value} == value


def test_the_error_body_component_becomes_the_typed_error(components):
    body = {"error": instance(components["Error"], components, full=True)}
    body["error"]["fields"] = [{"path": "spec.replicas", "message": "must be at least 0"}]

    error = error_from_response(400, body)

    assert isinstance(error, InvalidError) and error.code == body["error"]["code"]
    assert [(f.path, f.message) for f in error.fields] == [("spec.replicas", "must be at least 0")]
    assert error.request_id == body["error"]["request_id"]
    stale = {**body["error"], "fields": [{"path": "version", "message": "is 9"}]}
    conflict = error_from_response(409, {"error": stale}, sent_version="8")
    assert isinstance(conflict, ConflictError) and (conflict.sent_version, conflict.live_version) == ("8", "9")
