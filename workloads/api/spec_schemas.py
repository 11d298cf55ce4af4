"""Each kind's document in the OpenAPI description, typed from the kind registry's own schemas (``pincompute.specs``:
the CRDs are generated from the same definitions), so a generated client gets a model per kind and its spec.

A drf-spectacular postprocessing hook (``SPECTACULAR_SETTINGS``) replaces the new-workload body's component with a
``oneOf`` of one document per kind, told apart by ``kind`` (a discriminator). The CRD dialect becomes plain OpenAPI
exactly as the core validates: a closed object takes no other field (``additionalProperties: false``), an open one
(a probe, a volume) any, an int-or-string either type, and an optional field may be ``null`` (the core reads a null
as absent); the Kubernetes extensions are left out.
"""

from __future__ import annotations

from typing import Any

from pincompute import API_VERSION
from pincompute.specs import KINDS

SERVER_FILLED = ("project",)
NEW_DOCUMENT = "NewDocumentRequest"  # the component drf-spectacular names NewDocumentSerializer's request shape
DOCUMENT = "DocumentRequest"  # DocumentSerializer's (PUT: the kind and name may be left to the URL)


def rest_schema(crd: dict[str, Any]) -> dict[str, Any]:
    """A CRD-dialect schema (``Node.openapi()``) as the API's OpenAPI 3.0 states it."""
    schema = {k: v for k, v in crd.items() if not k.startswith("x-kubernetes-")}
    if "properties" in schema:
        required = set(schema.get("required", ()))
        schema["properties"] = {
            name: _nullable(rest_schema(child), name not in required) for name, child in schema["properties"].items()
        }
    if schema.get("type") == "object" and "additionalProperties" not in schema:
        schema["additionalProperties"] = bool(crd.get("x-kubernetes-preserve-unknown-fields"))
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            schema[key] = rest_schema(schema[key])
    if "anyOf" in schema:
        schema["anyOf"] = [rest_schema(option) for option in schema["anyOf"]]
    return schema


def _nullable(schema: dict[str, Any], optional: bool) -> dict[str, Any]:
    if not optional:
        return schema
    if "anyOf" in schema:  # OpenAPI 3.0's nullable holds only beside a type: on each of the types
        return {**schema, "anyOf": [{**option, "nullable": True} for option in schema["anyOf"]]}
    return {**schema, "nullable": True}


def typed_documents(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """The hook: ``<Kind>Spec`` and ``<Kind>Document`` components, the new-workload body as their ``oneOf``, and
    ``apiVersion`` required in a replacement's body."""
    schemas = result.get("components", {}).get("schemas", {})
    generic = schemas.get(NEW_DOCUMENT)
    if generic is None:  # a schema of some other urlconf
        return result
    mapping = {}
    for kind, definition in KINDS.items():
        crd = definition.schema.openapi()
        # the portal fills the project in (the one the URL names: workloads.submission.complete)
        crd["required"] = [name for name in crd.get("required", ()) if name not in SERVER_FILLED]
        spec = rest_schema(crd)
        spec["description"] = f"A {kind}'s spec."
        schemas[f"{kind}Spec"] = spec
        schemas[f"{kind}Document"] = _document(kind, generic)
        mapping[kind] = f"#/components/schemas/{kind}Document"
    # the core refuses a document without it, with every other problem at once (the serializer leaves it to it)
    replaced = schemas.get(DOCUMENT, {})
    replaced["required"] = sorted({*replaced.get("required", ()), "apiVersion"})
    schemas[NEW_DOCUMENT] = {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "kind", "mapping": mapping},
        "description": generic.get("description", ""),
    }
    return result


def _document(kind: str, generic: dict[str, Any]) -> dict[str, Any]:
    """One kind's document: the generic body's metadata and status, its own kind and spec."""
    properties = generic["properties"]
    return {
        "type": "object",
        "description": f"A {kind} as kubectl would take it. {KINDS[kind].info.description}",
        "properties": {
            "apiVersion": {"type": "string", "enum": [API_VERSION]},
            "kind": {"type": "string", "enum": [kind]},
            "metadata": properties["metadata"],
            "spec": {"$ref": f"#/components/schemas/{kind}Spec"},
            "status": properties["status"],
        },
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "additionalProperties": False,
    }
