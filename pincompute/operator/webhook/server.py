"""The HTTPS server the host's apiserver calls with each workload write (``POST /validate``), in a daemon thread
of the operator process. It serves on every replica, leader or not: admission must not wait for an election."""

from __future__ import annotations

import json
import logging
import ssl
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pincompute.operator.webhook.registration import PATH
from pincompute.operator.webhook.review import Around, admission_review
from pincompute.operator.webhook.tls import Material
from pincompute.runtime import RuntimeProfile

log = logging.getLogger("pincompute.operator.webhook")
MAX_BODY = 3 * 1024 * 1024  # the apiserver's own request limit; an AdmissionReview carries two objects


def _context(material: Material) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    with tempfile.TemporaryDirectory(prefix="pincompute-webhook-") as tmp:  # ssl reads keys from files only
        cert, key = Path(tmp) / "tls.crt", Path(tmp) / "tls.key"
        cert.write_bytes(material.cert)
        key.touch(mode=0o600)
        key.write_bytes(material.key)
        context.load_cert_chain(cert, key)
    return context


def serve(
    address: tuple[str, int],
    material: Material,
    around: Around,
    profile: RuntimeProfile,
) -> ThreadingHTTPServer:
    """Listening (port 0: any free port, ``server.server_port``) and answering in a daemon thread."""

    class Handler(BaseHTTPRequestHandler):
        timeout = 10  # seconds a connection may stall (the apiserver's own timeout is the configuration's)

        def setup(self) -> None:
            super().setup()
            self.request.do_handshake()

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if self.path.split("?", 1)[0] != PATH:
                return self._send(404, {"message": f"only {PATH} is served"})
            if not 0 < length <= MAX_BODY:
                return self._send(413, {"message": f"an AdmissionReview of 1 to {MAX_BODY} bytes is expected"})
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError:
                return self._send(400, {"message": "the body is not JSON"})
            if not isinstance(body, dict):
                return self._send(400, {"message": "the body is not an AdmissionReview"})
            self._send(200, admission_review(body, around, profile))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("webhook: " + format, *args)

    server = ThreadingHTTPServer(address, Handler)
    server.daemon_threads = True
    # The handshake happens in the request's own thread (on its first read), not in the accept loop.
    server.socket = _context(material).wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    threading.Thread(target=server.serve_forever, name="admission-webhook", daemon=True).start()
    return server
