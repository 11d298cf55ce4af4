"""The webhook's serving certificate, kept in one Secret on the host so every operator replica serves the same one
and the ``caBundle`` they register agrees: the first replica makes a CA and a certificate for the names the
apiserver calls, the others read it; it is made again when it no longer covers those names or is about to expire.
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from pincompute.errors import Conflict, NotFound
from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL
from pincompute.operator.kubeio import Kube, Resource

SECRETS = Resource("v1", "Secret", "secrets")
SECRET_NAME = "pincompute-admission-webhook"
VALIDITY = dt.timedelta(days=730)
RENEW_BEFORE = dt.timedelta(days=30)


@dataclass(frozen=True)
class Material:
    ca: bytes
    cert: bytes
    key: bytes


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _san(names: Sequence[str]) -> x509.SubjectAlternativeName:
    entries: list[x509.GeneralName] = []
    for name in names:
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            entries.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(entries)


def make_material(names: Sequence[str], now: dt.datetime | None = None) -> Material:
    """A fresh CA and a serving certificate it signs for ``names`` (DNS names or IP addresses)."""
    start = (now or dt.datetime.now(dt.UTC)) - dt.timedelta(minutes=5)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("pincompute-admission-webhook-ca"))
        .issuer_name(_name("pincompute-admission-webhook-ca"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(names[0]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + VALIDITY)
        .add_extension(_san(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    private = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return Material(ca.public_bytes(pem), cert.public_bytes(pem), private)


def covers(material: Material, names: Sequence[str], now: dt.datetime | None = None) -> bool:
    """The certificate names every one of ``names`` and stays valid beyond the renewal margin."""
    cert = x509.load_pem_x509_certificate(material.cert)
    if cert.not_valid_after_utc - RENEW_BEFORE < (now or dt.datetime.now(dt.UTC)):
        return False
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    held = {str(v) for v in san.get_values_for_type(x509.DNSName)}
    held |= {str(v) for v in san.get_values_for_type(x509.IPAddress)}
    return set(names) <= held


def _secret(namespace: str, material: Material, version: str | None = None) -> dict[str, object]:
    meta: dict[str, object] = {"name": SECRET_NAME, "namespace": namespace, "labels": {MANAGED_BY_LABEL: MANAGED_BY}}
    if version:
        meta["resourceVersion"] = version
    data = {"ca.crt": material.ca, "tls.crt": material.cert, "tls.key": material.key}
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "kubernetes.io/tls",
        "metadata": meta,
        "data": {k: base64.b64encode(v).decode() for k, v in data.items()},
    }


def _material(secret: dict[str, object]) -> Material | None:
    data = secret.get("data")
    if not isinstance(data, dict) or not {"ca.crt", "tls.crt", "tls.key"} <= data.keys():
        return None
    raw = {k: base64.b64decode(str(data[k])) for k in ("ca.crt", "tls.crt", "tls.key")}
    return Material(raw["ca.crt"], raw["tls.crt"], raw["tls.key"])


def serving_material(host: Kube, namespace: str, names: Sequence[str]) -> Material:
    """The shared certificate for ``names``: the Secret's when it covers them, else a new one written there (a
    replica that loses the race to write it reads the winner's)."""
    for _ in range(3):
        try:
            secret = host.get(SECRETS, namespace, SECRET_NAME)
        except NotFound:
            secret = None
        held = _material(secret) if secret else None
        if held is not None and covers(held, names):
            return held
        fresh = make_material(names)
        try:
            if secret is None:
                host.create(SECRETS, namespace, _secret(namespace, fresh))
            else:
                version = str((secret.get("metadata") or {}).get("resourceVersion") or "")
                host.update(SECRETS, namespace, SECRET_NAME, _secret(namespace, fresh, version))
            return fresh
        except Conflict:
            continue  # another replica wrote it first: read theirs
    raise Conflict(f"secret {namespace}/{SECRET_NAME} kept changing while the webhook's certificate was written")
