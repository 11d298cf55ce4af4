"""The real node's cluster DNS: what CoreDNS's kubernetes plugin answers, for Services only.

A pod resolves ``<service>.<namespace>.svc.cluster.local`` (and, through the search path the kubelet writes, the
short forms: the operator's in-cluster kubeconfig names ``kubernetes.default.svc``) to the Service's ClusterIP, read
from the host cluster; another name under the cluster domain is NXDOMAIN; any other name goes to the machine's own
resolver. A UDP server on the node's address, in a thread of the test's process (it ends with it).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from pathlib import Path

from kubernetes import client as k8s

DOMAIN = "cluster.local"
A, IN = 1, 1


def _question(packet: bytes) -> tuple[str, int, int]:
    """(name, qtype, offset after the question) of a query's first question."""
    labels, offset = [], 12
    while length := packet[offset]:
        labels.append(packet[offset + 1 : offset + 1 + length].decode("ascii", "replace").lower())
        offset += 1 + length
    qtype = struct.unpack("!H", packet[offset + 1 : offset + 3])[0]
    return ".".join(labels), qtype, offset + 5


def _answer(query: bytes, end: int, rcode: int, address: str | None) -> bytes:
    flags = 0x8400 | 0x0100 | 0x0080 | rcode  # response, authoritative, recursion desired and available
    header = query[:2] + struct.pack("!HHHHH", flags, 1, 1 if address else 0, 0, 0)
    body = query[12:end]
    if address:
        body += struct.pack("!HHHIH", 0xC00C, A, IN, 5, 4) + socket.inet_aton(address)
    return header + body


class ClusterDNS:
    def __init__(self, core: k8s.CoreV1Api, listen: str, upstream: str | None = None) -> None:
        self.core, self.listen = core, listen
        self.upstream = upstream or _system_nameserver()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)

    def start(self) -> None:
        self.sock.bind((self.listen, 53))
        threading.Thread(target=self._serve, daemon=True, name="cluster-dns").start()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def _serve(self) -> None:
        while True:
            try:
                packet, peer = self.sock.recvfrom(4096)
            except OSError:
                return
            threading.Thread(target=self._reply, args=(packet, peer), daemon=True).start()

    def _reply(self, packet: bytes, peer: tuple[str, int]) -> None:
        with contextlib.suppress(OSError, IndexError, struct.error):
            name, qtype, end = _question(packet)
            if name == DOMAIN or name.endswith(f".{DOMAIN}"):
                address = self.service_ip(name)  # an AAAA query of a Service: no record, no error
                rcode = 0 if address else 3
                self.sock.sendto(_answer(packet, end, rcode, address if qtype == A else None), peer)
            else:
                self.sock.sendto(self._forward(packet), peer)

    def service_ip(self, name: str) -> str | None:
        """The ClusterIP of ``<service>.<namespace>.svc.<domain>``, or None."""
        if not _is_service_name(name):
            return None
        service, namespace = name.split(".")[:2]
        try:
            ip = self.core.read_namespaced_service(service, namespace).spec.cluster_ip
        except k8s.ApiException:
            return None
        return ip if ip and ip != "None" else None

    def _forward(self, packet: bytes) -> bytes:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as upstream:
            upstream.settimeout(5)
            upstream.sendto(packet, (self.upstream, 53))
            return upstream.recv(4096)


def _is_service_name(name: str) -> bool:
    parts = name.split(".")
    return len(parts) == 5 and parts[2] == "svc" and ".".join(parts[3:]) == DOMAIN


def _system_nameserver() -> str:
    for line in Path("/etc/resolv.conf").read_text().splitlines():
        if line.startswith("nameserver"):
            return line.split()[1]
    return "127.0.0.1"
