"""A workload's references to the project's Secrets and ConfigMaps: found in env, envFrom and volumes with the field
that names each, validated by the schema, and the unresolved ones named by their field."""

from __future__ import annotations

from pincompute.config_refs import referenced, references, unresolved
from pincompute.specs import validate

APP = {"name": "app", "image": "registry.local/ads/app:1"}


def pinapp(container: dict, volumes: list | None = None) -> dict:
    template = {"containers": [{**APP, **container}], **({"volumes": volumes} if volumes else {})}
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinApp",
        "metadata": {"name": "web", "namespace": "proj-ads"},
        "spec": {"project": "ads", "replicas": 1, "zones": ["local-1a"], "template": template},
    }


USES_ALL = pinapp(
    {
        "env": [
            {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
            {"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "mode", "optional": True}}},
        ],
        "envFrom": [{"secretRef": {"name": "api-keys"}, "prefix": "API_"}],
        "volumeMounts": [{"name": "tls", "mountPath": "/tls"}],
    },
    volumes=[{"name": "tls", "secret": {"secretName": "tls", "items": [{"key": "tls.crt", "path": "cert.pem"}]}}],
)


def test_every_reference_is_found_with_its_field_and_the_document_is_valid():
    assert validate(USES_ALL) == []

    refs = references(USES_ALL)

    c = "spec.template.containers[0]"
    assert [(r.kind, r.name, r.keys, r.path) for r in refs] == [
        ("Secret", "db", ("password",), f"{c}.env[0].valueFrom.secretKeyRef.name"),
        ("ConfigMap", "settings", ("mode",), f"{c}.env[1].valueFrom.configMapKeyRef.name"),
        ("Secret", "api-keys", (), f"{c}.envFrom[0].secretRef.name"),
        ("Secret", "tls", ("tls.crt",), "spec.template.volumes[0].secret.secretName"),
    ]
    assert referenced(USES_ALL) == {
        ("Secret", "db"),
        ("ConfigMap", "settings"),
        ("Secret", "api-keys"),
        ("Secret", "tls"),
    }


def test_a_missing_object_or_key_is_named_by_its_field_and_an_optional_one_may_be_absent():
    held = {("Secret", "db"): frozenset({"user"}), ("Secret", "tls"): frozenset({"tls.crt"})}

    problems = {p.path: p.message for p in unresolved(references(USES_ALL), held)}

    c = "spec.template.containers[0]"
    assert problems == {
        f"{c}.env[0].valueFrom.secretKeyRef.key": "Secret 'db' has no key 'password'",
        f"{c}.envFrom[0].secretRef.name": "the project has no Secret named 'api-keys'",
    }


def test_a_bad_reference_name_or_an_unknown_envfrom_field_is_refused_by_the_schema():
    bad = pinapp({"envFrom": [{"secretRef": {"name": "Not_A_Name"}, "extra": 1}]})

    paths = {e.path for e in validate(bad)}

    assert "spec.template.containers[0].envFrom[0].secretRef.name" in paths
    assert "spec.template.containers[0].envFrom[0].extra" in paths
