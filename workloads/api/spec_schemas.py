"""Each kind's document in the OpenAPI description, typed from the kind registry's own schemas (``pincompute.specs``:
the CRDs are generated from the same definitions), so a generated client gets a model per kind and its spec.

A drf-spectacular postprocessing hook (``SPECTACULAR_SETTINGS``) replaces the new-workload body's component with a
``oneOf`` of one document per kind, told apart by ``kind`` (a discriminator); a replacement's body (PUT) with an
``anyOf`` of one per kind (its kind may be left to the URL, so nothing tells them apart but their specs); and the
workload every answer carries (GET, a list's rows, create, replace, patch, operations) with a ``oneOf`` of one per
kind, told apart by ``kind``, its ``spec`` the kind's (absent from a list's summaries). The CRD dialect becomes plain
OpenAPI exactly as the core validates: a closed object takes no other field (``additionalProperties: false``), an
open one (a probe, a volume) any, an int-or-string either type, and an optional field may be ``null`` (the core reads
a null as absent); the Kubernetes extensions are left out.
"""

from __future__ import annotations

from typing import Any

from pincompute import API_VERSION
from pincompute.specs import KINDS

SERVER_FILLED = ("project",)
NEW_DOCUMENT = "NewDocumentRequest"  # the component drf-spectacular names NewDocumentSerializer's request shape
DOCUMENT = "DocumentRequest"  # DocumentSerializer's (PUT: the kind and name may be left to the URL)
WORKLOAD = "Workload"  # WorkloadSerializer's: any kind's answer, its spec any object (the SDK's model is checked on it)
TYPED_WORKLOAD = "TypedWorkload"  # every answer's workload: one of the kinds'


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
    """The hook: ``<Kind>Spec``, ``<Kind>Document`` (create), ``<Kind>Replacement`` (PUT) and ``<Kind>Workload``
    (answers) components, and the generic bodies and answer as their unions."""
    schemas = result.get("components", {}).get("schemas", {})
    generic = schemas.get(NEW_DOCUMENT)
    if generic is None:  # a schema of some other urlconf
        return result
    replaced, answered = schemas.get(DOCUMENT), schemas.get(WORKLOAD)
    documents, replacements, workloads = {}, {}, {}
    for kind, definition in KINDS.items():
        crd = definition.schema.openapi()
        # the portal fills the project in (the one the URL names: workloads.submission.complete)
        crd["required"] = [name for name in crd.get("required", ()) if name not in SERVER_FILLED]
        spec = rest_schema(crd)
        spec["description"] = f"A {kind}'s spec."
        schemas[f"{kind}Spec"] = spec
        schemas[f"{kind}Document"] = _document(kind, generic)
        documents[kind] = f"#/components/schemas/{kind}Document"
        if replaced is not None:
            schemas[f"{kind}Replacement"] = _replacement(kind, replaced)
            replacements[kind] = f"#/components/schemas/{kind}Replacement"
        if answered is not None:
            schemas[f"{kind}Workload"] = _workload(kind, answered)
            workloads[kind] = f"#/components/schemas/{kind}Workload"
    schemas[NEW_DOCUMENT] = _union("oneOf", documents, generic, discriminated=True)
    if replaced is not None:
        schemas[DOCUMENT] = _union("anyOf", replacements, replaced, discriminated=False)
    if answered is not None:
        schemas[TYPED_WORKLOAD] = _union("oneOf", workloads, answered, discriminated=True)
        _point(result, f"#/components/schemas/{WORKLOAD}", f"#/components/schemas/{TYPED_WORKLOAD}", skip=workloads)
    return result


def _point(node: Any, old: str, new: str, skip: dict[str, str]) -> None:
    """Every ``$ref`` to ``old`` made one to ``new``, except inside the components named in ``skip``."""
    if isinstance(node, dict):
        if node.get("$ref") == old:
            node["$ref"] = new
        for key, child in node.items():
            if key not in skip:
                _point(child, old, new, skip)
    elif isinstance(node, list):
        for child in node:
            _point(child, old, new, skip)


def _union(keyword: str, refs: dict[str, str], generic: dict[str, Any], *, discriminated: bool) -> dict[str, Any]:
    union: dict[str, Any] = {keyword: [{"$ref": ref} for ref in refs.values()]}
    if discriminated:
        union["discriminator"] = {"propertyName": "kind", "mapping": refs}
    if generic.get("description"):
        union["description"] = generic["description"]
    return union


def _replacement(kind: str, generic: dict[str, Any]) -> dict[str, Any]:
    """One kind's replacement (PUT): the API version and the spec required (the core refuses a document without
    either, naming every other problem too); the kind and the name may be left to the URL."""
    properties = generic["properties"]
    return {
        "type": "object",
        "description": f"A {kind} replacing the one the URL names (its kind and name may be left out).",
        "properties": {
            "apiVersion": {"type": "string", "enum": [API_VERSION]},
            "kind": {"type": "string", "enum": [kind]},
            "metadata": properties["metadata"],
            "spec": {"$ref": f"#/components/schemas/{kind}Spec"},
            "status": properties["status"],
        },
        "required": ["apiVersion", "spec"],
        "additionalProperties": False,
    }


def _workload(kind: str, generic: dict[str, Any]) -> dict[str, Any]:
    """One kind's workload as the API answers it: the generic answer's fields, its kind and its kind's spec (spelled
    out, not an ``allOf`` of the generic one: generated clients cannot merge a field's two types)."""
    properties = dict(generic["properties"])
    properties["kind"] = {"type": "string", "enum": [kind]}
    properties["spec"] = {
        "allOf": [{"$ref": f"#/components/schemas/{kind}Spec"}],
        "description": generic["properties"]["spec"].get("description", ""),
    }
    return {**generic, "properties": properties, "description": f"A {kind} as the API answers it."}


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
