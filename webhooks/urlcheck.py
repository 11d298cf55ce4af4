"""A webhook's URL: http(s), a host that resolves, and (unless ``WEBHOOK_ALLOW_PRIVATE``, for dev and tests) none of
its addresses private, loopback, link-local or otherwise not public, so a hook cannot reach into the portal's own
network. Checked when the hook is saved and again before each POST (the name may resolve elsewhere by then)."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

from base.errors import Invalid


def _addresses(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Invalid.on("url", f"The host {host!r} does not resolve: {exc}.") from None
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]


def _not_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


def check_url(url: str) -> str:
    """``url`` cleaned, or ``Invalid`` naming the field ``url``."""
    url = (url or "").strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid.on("url", "An http:// or https:// URL with a host.")
    if len(url) > 500:
        raise Invalid.on("url", "At most 500 characters.")
    if parts.username or parts.password:
        raise Invalid.on("url", "No user or password in the URL; the signature authenticates the sender.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Invalid.on("url", "The port is not a number from 1 to 65535.") from None
    if not settings.WEBHOOK_ALLOW_PRIVATE:
        refused = [str(a) for a in _addresses(parts.hostname, port) if _not_public(a)]
        if refused:
            raise Invalid.on(
                "url", f"{parts.hostname} resolves to {refused[0]}, a private, loopback or link-local address."
            )
    return url
