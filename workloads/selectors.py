"""Label selectors as Kubernetes reads them (``k8s.io/apimachinery/pkg/labels``' ``Parse``), for the API's lists
(``?labelSelector=``, what ``pincompute get -l`` sends).

Requirements are separated by commas and all must hold: ``key`` (exists), ``!key`` (does not), ``key=value`` /
``key==value``, ``key!=value``, ``key in (a,b)``, ``key notin (a,b)``. As in Kubernetes, ``!=`` and ``notin`` also
match an object without the key; keys are qualified names (``prefix/name``) and values label values, each checked.
An invalid selector is ``Invalid`` on ``labelSelector`` saying what is wrong, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from base.errors import Invalid

FIELD = "labelSelector"
MAX_LENGTH = 4096
_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_PREFIX = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_KEY_NAME = re.compile(_NAME)
_VALUE = re.compile(f"({_NAME})?")
# one token: an operator, a parenthesis, a comma, or a word (a key or a value; ``in``/``notin`` are words)
_TOKEN = re.compile(r"\s*(==|!=|=|!|\(|\)|,|[^\s=!(),]+)")


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str  # exists, !exists, in, notin (= and == are in with one value, != notin)
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.operator == "exists":
            return self.key in labels
        if self.operator == "!exists":
            return self.key not in labels
        if self.operator == "in":
            return self.key in labels and labels[self.key] in self.values
        return self.key not in labels or labels[self.key] not in self.values


@dataclass(frozen=True)
class Selector:
    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)

    def __bool__(self) -> bool:
        return bool(self.requirements)


def _refuse(text: str, why: str) -> Invalid:
    return Invalid.on(FIELD, f"{text[:80]!r} is not a label selector: {why}")


def _key(text: str, key: str) -> str:
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _PREFIX.fullmatch(prefix)):
        raise _refuse(text, f"the key {key!r} has an invalid prefix (a DNS subdomain, at most 253 characters)")
    if len(name) > 63 or not _KEY_NAME.fullmatch(name):
        raise _refuse(
            text,
            f"the key {key!r} must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter "
            "or digit (with an optional prefix/)",
        )
    return key


def _value(text: str, value: str) -> str:
    if len(value) > 63 or not _VALUE.fullmatch(value):
        raise _refuse(
            text,
            f"the value {value!r} must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a "
            "letter or digit",
        )
    return value


def parse_selector(text: str) -> Selector:
    """The selector ``text`` names (empty: everything); ``Invalid`` on ``labelSelector`` otherwise."""
    if len(text) > MAX_LENGTH:
        raise Invalid.on(FIELD, f"at most {MAX_LENGTH} characters")
    tokens: list[str] = []
    at = 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        found = _TOKEN.match(text, at)
        if found is None:  # pragma: no cover - the token pattern matches any non-space character
            raise _refuse(text, f"unexpected text at {at + 1}")
        tokens.append(found.group(1))
        at = found.end()
    requirements: list[Requirement] = []
    i = 0

    def take() -> str:
        nonlocal i
        if i >= len(tokens):
            raise _refuse(text, "it ends too early")
        i += 1
        return tokens[i - 1]

    while i < len(tokens):
        word = take()
        if word == "!":
            requirements.append(Requirement(_key(text, take()), "!exists"))
        elif word in ("=", "==", "!=", "(", ")", ","):
            raise _refuse(text, f"a key was expected, not {word!r}")
        else:
            key = _key(text, word)
            op = tokens[i] if i < len(tokens) else ","
            if op == ",":
                requirements.append(Requirement(key, "exists"))
            else:
                i += 1
                requirements.append(_with_values(text, key, op, take))
        if i < len(tokens):
            if tokens[i] != ",":
                raise _refuse(text, f"a comma was expected before {tokens[i]!r}")
            i += 1
            if i == len(tokens):
                raise _refuse(text, "it ends with a comma")
    return Selector(tuple(requirements))


def _with_values(text: str, key: str, op: str, take: Callable[[], str]) -> Requirement:
    if op in ("=", "==", "!="):
        value = take()
        if value in ("(", ")", ",", "=", "==", "!=", "!"):
            raise _refuse(text, f"a value was expected after {key}{op}")
        return Requirement(key, "notin" if op == "!=" else "in", frozenset({_value(text, value)}))
    if op not in ("in", "notin"):
        raise _refuse(text, f"unknown operator {op!r} after {key!r} (=, ==, !=, in, notin)")
    if take() != "(":
        raise _refuse(text, f"{key} {op} needs a set of values in parentheses: {key} {op} (a,b)")
    values: set[str] = set()
    while True:
        value = take()
        if value == ")" and not values:
            raise _refuse(text, f"{key} {op} (): the set of values must not be empty")
        values.add(_value(text, value))
        after = take()
        if after == ")":
            return Requirement(key, op, frozenset(values))
        if after != ",":
            raise _refuse(text, f"a comma or ')' was expected in the set of {key}, not {after!r}")
