"""The signature of a generic webhook body, in the Stripe/GitHub manner (documented in docs/notifications.md).

Headers: ``X-PinConsole-Timestamp`` (Unix seconds) and ``X-PinConsole-Signature: v1=<hex>``, the HMAC-SHA256 of
``<timestamp>.<body>`` keyed by the hook's secret. A receiver recomputes it over the raw body, compares in constant
time and refuses a timestamp older than a few minutes (a replay)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

SIGNATURE_HEADER = "X-PinConsole-Signature"
TIMESTAMP_HEADER = "X-PinConsole-Timestamp"
EVENT_HEADER = "X-PinConsole-Event"
DELIVERY_HEADER = "X-PinConsole-Delivery"


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"v1={mac.hexdigest()}"
