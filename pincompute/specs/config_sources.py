"""The schema of a pod's references to the project's Secrets and ConfigMaps (env, envFrom, volumes): typed, so the
catalog form and ``kubectl explain`` show them; ``pincompute.config_refs`` reads them."""

from __future__ import annotations

from pincompute.specs import checks as c
from pincompute.specs.schema import Bool, Field, Obj, Str, obj


def config_ref(kind: str) -> Obj:
    return obj(
        Field("name", Str(checks=(c.dns_subdomain,), description=f"The project's {kind}."), required=True),
        Field("optional", Bool(description=f"Start without it when the {kind} does not exist.")),
        Field(
            "rollOnChange",
            Bool(description=f"Roll the pods when the {kind} changes (default true; false: they read it at start)."),
        ),
        description=f"One of the project's {kind}s (pincompute create {kind.lower()}).",
    )


def key_ref(kind: str) -> Obj:
    return obj(
        Field("name", Str(checks=(c.dns_subdomain,), description=f"The project's {kind}."), required=True),
        Field("key", Str(checks=(c.config_key,), description="Its key whose value the variable takes."), required=True),
        Field("optional", Bool(description=f"Start without the variable when the {kind} or key does not exist.")),
        Field(
            "rollOnChange",
            Bool(description=f"Roll the pods when the {kind} changes (default true; false: they read it at start)."),
        ),
        description=f"A key of one of the project's {kind}s.",
    )


def file_source(kind: str, name_field: str) -> Obj:
    return obj(
        Field(name_field, Str(checks=(c.dns_subdomain,), description=f"The project's {kind}."), required=True),
        Field("optional", Bool(description=f"Start with an empty volume when the {kind} does not exist.")),
        Field(
            "rollOnChange",
            Bool(description=f"Roll the pods when the {kind} changes (default true; false: they read it at start)."),
        ),
        open=True,
        description=f"Each key of one of the project's {kind}s as a file (items: only some keys, at chosen paths).",
    )
