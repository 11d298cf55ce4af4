"""Semantic checks for single values; each returns a human sentence, or None when the value is fine."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from pincompute.cron import CronError, parse_cron, zone
from pincompute.quantity import QuantityError, parse_cpu, parse_gpu, parse_memory, parse_quantity

WORKLOAD_NAME_MAX = 40  # leaves room for "-<zone>", "-config" and the generated pod suffixes
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
_PORT_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
_CONFIG_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_RFC3339_LOCAL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?")
_RFC3339 = re.compile(_RFC3339_LOCAL.pattern + r"(Z|[+-][0-9]{2}:[0-9]{2})")
_IMAGE = re.compile(
    r"^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?"  # optional registry host[:port]/
    r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"  # first path component
    r"(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"  # further path components
    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"  # optional tag
    r"(?:@sha256:[a-f0-9]{64})?$"  # optional digest
)


def dns_label(value: str, max_length: int = 63) -> str | None:
    if len(value) > max_length:
        return f"{value!r} is longer than {max_length} characters"
    if not _DNS_LABEL.fullmatch(value):
        return (
            f"{value!r} is not a valid name: use lower-case letters, digits and '-', "
            "starting and ending with a letter or digit"
        )
    return None


def workload_name(value: str) -> str | None:
    message = dns_label(value, WORKLOAD_NAME_MAX)
    if message is None and not value[0].isalpha():
        return f"{value!r} must start with a letter (it also names Services)"
    return message


def container_name(value: str) -> str | None:
    return dns_label(value)


def dns_subdomain(value: str) -> str | None:
    if len(value) > 253 or not _DNS_SUBDOMAIN.fullmatch(value):
        return f"{value!r} is not a valid DNS name"
    return None


def label_value(value: str) -> str | None:
    if len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
        return f"{value!r} is not a valid label value (at most 63 letters, digits, '-', '_', '.')"
    return None


def label_key(value: str) -> str | None:
    prefix, _, name = value.rpartition("/")
    if (prefix and dns_subdomain(prefix)) or len(name) > 63 or not _LABEL_NAME.fullmatch(name):
        return f"{value!r} is not a valid label key"
    return None


def image_ref(value: str) -> str | None:
    if not value or not _IMAGE.fullmatch(value):
        return f"{value!r} is not a valid image reference (example: registry.local/team/app:1.2.3)"
    return None


def env_name(value: str) -> str | None:
    if not _ENV_NAME.fullmatch(value):
        return f"{value!r} is not a valid environment variable name"
    return None


def port_name(value: str) -> str | None:
    if len(value) > 15 or not _PORT_NAME.fullmatch(value) or not any(c.isalpha() for c in value):
        return f"{value!r} is not a valid port name (at most 15 lower-case letters, digits and '-')"
    return None


def config_key(value: str) -> str | None:
    if len(value) > 253 or not _CONFIG_KEY.fullmatch(value):
        return f"{value!r} is not a valid config key (letters, digits, '-', '_', '.')"
    return None


def absolute_path(value: str) -> str | None:
    return None if value.startswith("/") else f"{value!r} must be an absolute path"


def _quantity(parser: Callable[[int | str], object]) -> Callable[[int | str], str | None]:
    def check(value: int | str) -> str | None:
        try:
            parser(value)
        except QuantityError as exc:
            return str(exc)
        return None

    return check


cpu_quantity = _quantity(parse_cpu)
memory_quantity = _quantity(parse_memory)
gpu_quantity = _quantity(parse_gpu)
any_quantity = _quantity(parse_quantity)  # a metric target: any Kubernetes quantity


def int_or_percent(value: int | str) -> str | None:
    """A count or ``0%``-``100%``. The digits are bounded before ``int`` reads them: it refuses over 4,300."""
    if isinstance(value, int):
        return None if value >= 0 else f"{_brief(value)} must not be negative"
    if re.fullmatch(r"[0-9]{1,9}%", value) and int(value[:-1]) <= 100:
        return None
    return f"{_brief(value)} must be a count or a percentage such as '25%'"


def port_ref(value: int | str) -> str | None:
    if isinstance(value, int):
        return None if 1 <= value <= 65535 else f"{value} is not a port number (1-65535)"
    return port_name(value)


def rfc3339(value: str) -> str | None:
    """RFC 3339 exactly (the CRDs' ``format: date-time``, which the apiserver checks): Python's ``fromisoformat``
    alone also takes ISO 8601 forms the apiserver refuses (``20240501T120000Z``, a space for ``T``)."""
    example = "(example: 2024-05-01T12:00:00Z)"
    if not _RFC3339.fullmatch(value):
        if _RFC3339_LOCAL.fullmatch(value):
            return f"{value!r} needs a timezone (end it with Z)"
        return f"{value!r} is not an RFC 3339 timestamp {example}"
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return f"{value!r} is not a real date and time {example}"
    return None


def cron_expression(value: str) -> str | None:
    try:
        parse_cron(value)
    except CronError as exc:
        return f"{_brief(value)} is not a valid cron schedule: {exc}"
    return None


def _brief(value: int | str) -> str:
    """``value`` for a message; a hostile one of thousands of characters (or digits) by its start and size."""
    if isinstance(value, int):
        return str(value) if abs(value) < 10**18 else "a number of more than 18 digits"
    return repr(value) if len(value) <= 60 else f"{value[:40]!r}... ({len(value)} characters)"


def time_zone(value: str) -> str | None:
    try:
        zone(value)
    except CronError as exc:
        return str(exc)
    return None
