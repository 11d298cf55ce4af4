"""The start-up probes reuse one TLS context per CA file, and a CA written again (a new state dir's PKI at the same
path) gets a new one: a stale context would refuse every apiserver signed by the new CA."""

from __future__ import annotations

import os
import ssl

from devtools.localcp import procs
from devtools.localcp.pki import ensure_pki


def test_one_context_per_ca_file_until_the_file_changes(tmp_path):
    ca = ensure_pki(tmp_path / "state").ca_crt

    first = procs._ssl_context(ca)

    assert procs._ssl_context(ca) is first
    assert first.verify_mode == ssl.CERT_REQUIRED and first.get_ca_certs()
    stat = ca.stat()
    os.utime(ca, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert procs._ssl_context(ca) is not first
