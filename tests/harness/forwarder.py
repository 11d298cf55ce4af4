"""A TCP forwarder in front of an apiserver, so a test can stop "the apiserver" a client sees (refused
connections, cut watches) and start it again on the same port, without touching the shared control plane."""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml


class TcpForwarder:
    """A TCP forwarder in front of an apiserver: ``stop`` refuses new connections and cuts open ones, as a
    stopped apiserver does; ``start`` serves again on the same port. ``hold`` makes it a silent one instead:
    connections are accepted and open ones stay open, but no byte goes either way (a hung apiserver or a network
    path that died without a reset) until ``release``, which cuts what was held."""

    def __init__(self, target: tuple[str, int], host: str = "127.0.0.1") -> None:
        """``host``: the address it listens on (the real node's pods reach the host's services at its bridge's)."""
        self.target, self.host = target, host
        probe = socket.socket()
        probe.bind((host, 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.listener: Any = None
        self.open: list[Any] = []
        self.holding = threading.Event()

    def start(self) -> None:
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((self.host, self.port))
        self.listener.listen(16)
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def _accept(self, listener: Any) -> None:
        while True:
            try:
                downstream, _ = listener.accept()
            except OSError:
                return
            if listener is not self.listener:  # stopped while accept() was blocked: refuse, as a dead server
                with contextlib.suppress(OSError):
                    downstream.close()
                return
            if self.holding.is_set():
                self.open.append(downstream)  # accepted, never answered
                continue
            upstream = socket.create_connection(self.target)
            self.open += [downstream, upstream]
            for a, b in ((downstream, upstream), (upstream, downstream)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: Any, sink: Any) -> None:
        try:
            while chunk := source.recv(65536):
                if not self.holding.is_set():  # held: swallowed, as a dead path would
                    sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.close()

    def hold(self) -> None:
        self.holding.set()

    def release(self) -> None:
        """Serve again; what was held is cut (its peers see a reset and reconnect)."""
        self.holding.clear()
        open_now, self.open = self.open, []
        for s in open_now:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
                s.close()

    def stop(self) -> None:
        if self.listener is not None:
            listener, self.listener = self.listener, None
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes a blocked accept(); close() alone does not on Linux
            listener.close()
        for s in self.open:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
                s.close()
        self.open = []


def kubeconfig_through_forwarder(kubeconfig: Path, server: str, context: str, out: Path) -> TcpForwarder:
    """A copy of ``kubeconfig`` at ``out`` whose cluster ``context`` (or the one at ``server``) is reached through a
    started forwarder: stopping the forwarder is that apiserver stopping, for whoever uses the copy."""
    config = yaml.safe_load(kubeconfig.read_text())
    target = urlparse(server)
    forwarder = TcpForwarder((target.hostname or "127.0.0.1", target.port or 443))
    forwarder.start()
    for entry in config["clusters"]:
        if entry["name"] == context or entry["cluster"]["server"] == server:
            entry["cluster"]["server"] = f"https://127.0.0.1:{forwarder.port}"
    out.write_text(yaml.safe_dump(config))
    return forwarder
