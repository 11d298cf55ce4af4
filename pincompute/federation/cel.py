"""CEL text for the host's ValidatingAdmissionPolicy, written from the library's own rules and sentences: a string
literal, Python's ``repr`` of a string, a message template rendered as a concatenation, a ``checks.Rule`` as a
condition. Kubernetes' CEL (RE2 regular expressions, the strings extension) is the target."""

from __future__ import annotations

import json
import string
from collections.abc import Mapping, Sequence

from pincompute.specs.checks import Rule


def literal(text: str) -> str:
    """A CEL string literal (JSON's escapes are CEL's too)."""
    return json.dumps(text)


def python_repr(expr: str) -> str:
    """``repr()`` of the string ``expr`` evaluates to, as Python writes it: single quotes unless the text holds a
    single quote and no double one; backslashes and the chosen quote escaped (control characters are not: no
    value that reaches a message here can hold one and pass the apiserver's own checks)."""
    q, dq, bs = literal("'"), literal('"'), literal("\\")
    escaped = f"{expr}.replace({bs}, {literal(chr(92) * 2)})"
    return (
        f"({expr}.contains({q}) && !{expr}.contains({dq}) ? {dq} + {escaped} + {dq} : "
        f"{q} + {escaped}.replace({q}, {literal(chr(92) + chr(39))}) + {q})"
    )


def message(template: str, quoted: Mapping[str, str] | None = None, **fields: str) -> str:
    """``template.format(...)`` as CEL: each ``{name}`` is the CEL expression ``fields[name]`` (a string),
    ``{name!r}`` its ``python_repr`` (or ``quoted[name]``, an expression already holding it)."""
    parts: list[str] = []
    for text, name, _spec, conversion in string.Formatter().parse(template):
        if text:
            parts.append(literal(text))
        if name is not None:
            if conversion == "r":
                parts.append((quoted or {}).get(name) or python_repr(fields[name]))
            else:
                parts.append(fields[name])
    return " + ".join(parts) or literal("")


def passes(rule: Rule, value: str) -> str:
    """The condition ``value`` (a CEL string expression) meets ``rule``."""
    if rule.max_length is not None:
        return f"size({value}) <= {rule.max_length}"
    return f"{value}.matches({literal(f'^(?:{rule.pattern})$')})"


def rule_message(rule: Rule, value: str, quoted: str) -> str:
    """``rule``'s sentence for ``value``, whose ``repr`` the expression ``quoted`` holds."""
    limit = literal(str(rule.max_length)) if rule.max_length is not None else literal("")
    return message(rule.message, {"value": quoted}, value=value, limit=limit)


def all_pass(rules: Sequence[Rule], value: str) -> str:
    return " && ".join(f"({passes(rule, value)})" for rule in rules)


def first_failure(rules: Sequence[Rule], value: str, quoted: str) -> str:
    """The sentence of the first rule ``value`` fails, as ``checks.first_failure`` picks it (only evaluated for a
    value that fails one); ``quoted`` holds ``value``'s ``repr``."""
    *leading, last = rules
    out = rule_message(last, value, quoted)
    for rule in reversed(leading):
        out = f"!({passes(rule, value)}) ? {rule_message(rule, value, quoted)} : ({out})"
    return out
