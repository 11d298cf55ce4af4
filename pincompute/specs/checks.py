"""Semantic checks for single values; each returns a human sentence, or None when the value is fine."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from pincompute.cron import CronError, parse_cron, zone
from pincompute.quantity import QuantityError, parse_cpu, parse_gpu, parse_memory, parse_quantity

WORKLOAD_NAME_MAX = 40  # leaves room for "-<zone>", "-config" and the generated pod suffixes
DNS_LABEL_MAX = 63
DNS_SUBDOMAIN_MAX = 253
LABEL_VALUE_MAX = 63
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


@dataclass(frozen=True)
class Rule:
    """One test of a string and the sentence when it fails: longer than ``max_length`` characters, or not matching
    ``pattern`` whole. ``message`` is a template over ``{value!r}`` and ``{limit}``. The checks below are made of
    rules where they can be, so the host's ValidatingAdmissionPolicy (``federation.host_policy``) says the same in
    CEL from the same limits, patterns and sentences."""

    message: str
    max_length: int | None = None
    pattern: str | None = None

    def fails(self, value: str) -> bool:
        if self.max_length is not None:
            return len(value) > self.max_length
        return self.pattern is not None and re.fullmatch(self.pattern, value) is None

    def sentence(self, value: str) -> str:
        return self.message.format(value=value, limit=self.max_length)


def first_failure(rules: Sequence[Rule], value: str) -> str | None:
    """The sentence of the first rule ``value`` fails (None: it passes them all)."""
    return next((rule.sentence(value) for rule in rules if rule.fails(value)), None)


def _dns_label_rules(max_length: int) -> tuple[Rule, ...]:
    return (
        Rule("{value!r} is longer than {limit} characters", max_length=max_length),
        Rule(
            "{value!r} is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter "
            "or digit",
            pattern=_DNS_LABEL.pattern,
        ),
    )


DNS_LABEL_RULES = _dns_label_rules(DNS_LABEL_MAX)
WORKLOAD_NAME_RULES = (
    *_dns_label_rules(WORKLOAD_NAME_MAX),
    Rule("{value!r} must start with a letter (it also names Services)", pattern="[a-z].*"),
)
_NOT_DNS_NAME = "{value!r} is not a valid DNS name"
DNS_SUBDOMAIN_RULES = (
    Rule(_NOT_DNS_NAME, max_length=DNS_SUBDOMAIN_MAX),
    Rule(_NOT_DNS_NAME, pattern=_DNS_SUBDOMAIN.pattern),
)
_NOT_LABEL_VALUE = f"{{value!r}} is not a valid label value (at most {LABEL_VALUE_MAX} letters, digits, '-', '_', '.')"
LABEL_VALUE_RULES = (
    Rule(_NOT_LABEL_VALUE, max_length=LABEL_VALUE_MAX),
    Rule(_NOT_LABEL_VALUE, pattern=_LABEL_VALUE.pattern),
)
IMAGE_REF_RULES = (
    Rule("{value!r} is not a valid image reference (example: registry.local/team/app:1.2.3)", pattern=_IMAGE.pattern),
)
ABSOLUTE_PATH_RULES = (Rule("{value!r} must be an absolute path", pattern="(?s)/.*"),)


def dns_label(value: str, max_length: int = DNS_LABEL_MAX) -> str | None:
    return first_failure(_dns_label_rules(max_length), value)


def workload_name(value: str) -> str | None:
    return first_failure(WORKLOAD_NAME_RULES, value)


def container_name(value: str) -> str | None:
    return first_failure(DNS_LABEL_RULES, value)


def dns_subdomain(value: str) -> str | None:
    return first_failure(DNS_SUBDOMAIN_RULES, value)


def label_value(value: str) -> str | None:
    return first_failure(LABEL_VALUE_RULES, value)


def label_key(value: str) -> str | None:
    prefix, _, name = value.rpartition("/")
    if (prefix and dns_subdomain(prefix)) or len(name) > 63 or not _LABEL_NAME.fullmatch(name):
        return f"{value!r} is not a valid label key"
    return None


def image_ref(value: str) -> str | None:
    return first_failure(IMAGE_REF_RULES, value)


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
    return first_failure(ABSOLUTE_PATH_RULES, value)


RULES: dict[Callable[[str], str | None], tuple[Rule, ...]] = {
    dns_label: DNS_LABEL_RULES,
    workload_name: WORKLOAD_NAME_RULES,
    container_name: DNS_LABEL_RULES,
    dns_subdomain: DNS_SUBDOMAIN_RULES,
    label_value: LABEL_VALUE_RULES,
    image_ref: IMAGE_REF_RULES,
    absolute_path: ABSOLUTE_PATH_RULES,
}
"""The checks made only of rules, by check: what CEL can say as they do."""


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
