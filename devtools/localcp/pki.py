"""PKI for the local control plane, generated with ``cryptography`` and cached per state dir.

Layout of ``<state_dir>/pki``::

    ca.crt ca.key                 self-signed CA (10 years)
    serving.crt serving.key       SAN IP:127.0.0.1, DNS:localhost, and the in-cluster names of an apiserver
                                  (kubernetes.default.svc..., 10.96.0.1) for pods on a real node, plus the
                                  caller's ``extra_ips``; shared by apiservers, kwok and dex
    admin.crt admin.key           client cert CN=admin, O=system:masters
    admin-token                   static bearer token (system:masters) for the kubeconfig
    tokens.csv                    kube-apiserver --token-auth-file
    sa-<cluster>.key/.pub         per-cluster service-account signing keypair
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_VALIDITY = dt.timedelta(days=3650)
# What a pod on a real node (tests/harness/realnode.py) names its cluster's apiserver by: the `kubernetes` Service.
SERVING_NAMES = ("localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                 "kubernetes.default.svc.cluster.local")  # fmt: skip
SERVING_IPS = ("127.0.0.1", "10.96.0.1")


def _write(path: Path, data: bytes, private: bool = False) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    if private:
        os.chmod(tmp, 0o600)
    tmp.replace(path)


def _key_pem(key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _load_key(path: Path) -> ec.EllipticCurvePrivateKey:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return key


def _name(cn: str, org: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


@dataclass(frozen=True)
class PKI:
    """Paths of the generated material. Use :func:`ensure_pki` to create it."""

    dir: Path

    ca_crt = property(lambda self: self.dir / "ca.crt")
    ca_key = property(lambda self: self.dir / "ca.key")
    serving_crt = property(lambda self: self.dir / "serving.crt")
    serving_key = property(lambda self: self.dir / "serving.key")
    admin_crt = property(lambda self: self.dir / "admin.crt")
    admin_key = property(lambda self: self.dir / "admin.key")
    token_file = property(lambda self: self.dir / "admin-token")
    tokens_csv = property(lambda self: self.dir / "tokens.csv")

    @property
    def admin_token(self) -> str:
        return self.token_file.read_text().strip()

    def sa_key(self, cluster: str) -> Path:
        return self.dir / f"sa-{cluster}.key"

    def sa_pub(self, cluster: str) -> Path:
        return self.dir / f"sa-{cluster}.pub"

    def ensure_sa_keypair(self, cluster: str) -> tuple[Path, Path]:
        """RSA keypair used by one cluster to sign/verify service-account tokens (cached)."""
        key_path, pub_path = self.sa_key(cluster), self.sa_pub(cluster)
        if not (key_path.exists() and pub_path.exists()):
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            _write(key_path, _key_pem(key), private=True)
            pub = key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            _write(pub_path, pub)
        return key_path, pub_path


def _issue(
    ca_key: ec.EllipticCurvePrivateKey,
    ca_cert: x509.Certificate,
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    *,
    server: bool,
    extra_ips: Sequence[str] = (),
) -> x509.Certificate:
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + _VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_encipherment=True,
                content_commitment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [
                    *(x509.IPAddress(ipaddress.ip_address(ip)) for ip in _serving_ips(extra_ips)),
                    *map(x509.DNSName, SERVING_NAMES),
                ]
            ),
            critical=False,
        ).add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
    else:
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    return builder.sign(ca_key, hashes.SHA256())


def _serving_ips(extra_ips: Sequence[str]) -> list[str]:
    return list(dict.fromkeys((*SERVING_IPS, *extra_ips)))


def _names_ips(crt: Path, ips: Sequence[str]) -> bool:
    """Whether the certificate at ``crt`` names every address of ``ips``."""
    if not ips:
        return True
    cert = x509.load_pem_x509_certificate(crt.read_bytes())
    named = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.IPAddress
    )
    return {ipaddress.ip_address(ip) for ip in ips} <= set(named)


def ensure_pki(state_dir: Path, extra_ips: Sequence[str] = ()) -> PKI:
    """Create (once) and return the PKI under ``state_dir/pki``. Idempotent. ``extra_ips``: more addresses the
    serving certificate must name (e.g. dex on the real node's bridge); it is issued again if it lacks one."""
    pki = PKI(Path(state_dir) / "pki")
    pki.dir.mkdir(parents=True, exist_ok=True)
    os.chmod(pki.dir, 0o700)
    pem = serialization.Encoding.PEM

    if not (pki.ca_crt.exists() and pki.ca_key.exists()):
        ca_key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        subject = _name("pinconsole-localcp-ca")
        ca_cert = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + _VALIDITY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    key_encipherment=False,
                    content_commitment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        _write(pki.ca_key, _key_pem(ca_key), private=True)
        _write(pki.ca_crt, ca_cert.public_bytes(pem))
        for stale in (pki.serving_crt, pki.admin_crt):
            stale.unlink(missing_ok=True)

    ca_key = _load_key(pki.ca_key)
    ca_cert = x509.load_pem_x509_certificate(pki.ca_crt.read_bytes())

    for crt, key_path, subject, server in (
        (pki.serving_crt, pki.serving_key, _name("localhost"), True),
        (pki.admin_crt, pki.admin_key, _name("admin", "system:masters"), False),
    ):
        if crt.exists() and key_path.exists() and not (server and not _names_ips(crt, extra_ips)):
            continue
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _issue(ca_key, ca_cert, subject, key, server=server, extra_ips=extra_ips)
        _write(key_path, _key_pem(key), private=True)
        _write(crt, cert.public_bytes(pem))

    if not pki.token_file.exists():
        _write(pki.token_file, (secrets.token_urlsafe(32) + "\n").encode(), private=True)
    csv = f"{pki.admin_token},admin,admin,system:masters\n".encode()
    if not pki.tokens_csv.exists() or pki.tokens_csv.read_bytes() != csv:
        _write(pki.tokens_csv, csv, private=True)
    return pki


def issue_client_cert(pki: PKI, crt: Path, key: Path, cn: str, org: str | None = None) -> None:
    """A client certificate signed by the control plane's CA, e.g. a kubelet's ``system:node:<name>`` in
    ``system:nodes`` (what the Node authorizer knows) or ``system:kube-proxy``."""
    private = ec.generate_private_key(ec.SECP256R1())
    cert = _issue(_load_key(pki.ca_key), x509.load_pem_x509_certificate(pki.ca_crt.read_bytes()), _name(cn, org),
                  private, server=False)  # fmt: skip
    _write(key, _key_pem(private), private=True)
    _write(crt, cert.public_bytes(serialization.Encoding.PEM))
