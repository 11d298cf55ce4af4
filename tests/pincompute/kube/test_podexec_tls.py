"""A kubeconfig's ``tls-server-name``: the exec and log streams' TLS context checks the apiserver's certificate
against that name, not the address dialled (an apiserver behind a forwarder or a load balancer's IP), for sync
sockets (the operator's exec) and asyncio connections (the portal's shells and log follows) alike."""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from kubernetes import client as k8s

from pincompute.kube.podexec import tls_context

NAME = "apiserver.internal"  # the only name the server's certificate carries (not 127.0.0.1)


def _cert(subject: str, issuer_key: ec.EllipticCurvePrivateKey, key: ec.EllipticCurvePrivateKey, ca: bool) -> bytes:
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test-ca")]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(NAME)]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A TLS server on 127.0.0.1 whose certificate names only ``NAME``; (port, CA file)."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    (tmp_path / "ca.crt").write_bytes(_cert("test-ca", ca_key, ca_key, ca=True))
    (tmp_path / "tls.crt").write_bytes(_cert(NAME, ca_key, key, ca=False))
    pem = serialization.PrivateFormat.PKCS8
    (tmp_path / "tls.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, pem, serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "tls.crt", tmp_path / "tls.key")
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.sendall(b"ok")
            except (OSError, ssl.SSLError):
                conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1], tmp_path / "ca.crt"
    listener.close()


def _cfg(port: int, ca: Path, server_name: str | None) -> k8s.Configuration:
    cfg = k8s.Configuration(host=f"https://127.0.0.1:{port}")
    cfg.ssl_ca_cert, cfg.tls_server_name = str(ca), server_name
    return cfg


def _sync(port: int, context: ssl.SSLContext) -> bytes:
    with (
        socket.create_connection(("127.0.0.1", port)) as raw,
        context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
    ):
        return tls.recv(2)


async def _async(port: int, context: ssl.SSLContext) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context, server_hostname="127.0.0.1")
    data = await reader.read(2)
    writer.close()
    return data


def test_the_certificate_is_checked_against_the_kubeconfigs_server_name(server: tuple[int, Path]) -> None:
    port, ca = server
    named = tls_context(_cfg(port, ca, NAME))
    assert _sync(port, named) == b"ok"
    assert asyncio.run(_async(port, named)) == b"ok"


def test_without_a_server_name_the_address_dialled_must_be_in_the_certificate(server: tuple[int, Path]) -> None:
    port, ca = server
    plain = tls_context(_cfg(port, ca, None))
    with pytest.raises(ssl.SSLCertVerificationError, match="IP address mismatch"):
        _sync(port, plain)
    with pytest.raises(ssl.SSLCertVerificationError, match="IP address mismatch"):
        asyncio.run(_async(port, plain))


def test_a_server_name_the_certificate_does_not_carry_is_refused(server: tuple[int, Path]) -> None:
    port, ca = server
    with pytest.raises(ssl.SSLCertVerificationError, match="Hostname mismatch"):
        _sync(port, tls_context(_cfg(port, ca, "other.internal")))
