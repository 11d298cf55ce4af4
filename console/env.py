"""Typed environment helpers: one place that reads os.environ for settings."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None else value


def env_required(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise ImproperlyConfigured(f"The environment variable {name} is required when DEBUG is off.")
    return value


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use true/false).")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer.") from exc


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return list(default or [])
    return [item.strip() for item in value.split(",") if item.strip()]


def env_map(name: str, keys: tuple[str, ...]) -> dict[str, str]:
    """``key=value`` pairs separated by commas, each key one of ``keys``: ``cpu=16,memory=64Gi``."""
    pairs: dict[str, str] = {}
    for item in env_list(name):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or key not in keys or not value:
            raise ImproperlyConfigured(f"{name}: {item!r} is not key=value with key one of {', '.join(keys)}.")
        pairs[key] = value
    return pairs


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, or "" when it has none (for CSP source lists)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
