"""The host's ValidatingAdmissionPolicy: what CEL can say of a workload written on the host, said in-process by the
apiserver itself beside the operator's admission webhook, in the portal's words and field paths.

Generated, never written by hand: each string field whose library check is made of ``checks.Rule``s (names, label
values, image references, absolute paths, DNS names) becomes one validation with the same limits, patterns and
sentences, found by walking ``specs.METADATA`` and every kind's spec schema (a field inside a list names the first
failing item's index; lists inside lists are left to the webhook). Ahead of them, ``spec.project`` must name the
project whose namespace holds the workload (the namespace's ``pincompute.io/project`` label, which provisioning
writes), worded as ``host_checks`` words it. The apiserver shows the first failing validation only; the webhook
lists every problem.

What the CRD schema already says (types, enums such as ``spec.tier``, minimums and maximums such as
``spec.replicas``, required fields) the apiserver refuses before admission, so no policy or webhook sees it; what
needs the host's other objects (quota, members' zones, Pod Security) or Python (quantities, cron) stays the
webhook's.

Like the webhook it lets through a write that leaves ``spec`` as it was and an object being deleted
(``matchConditions``), and a break-glass write (a member of ``BREAK_GLASS_GROUP`` setting
``BREAK_GLASS_ANNOTATION`` to a reason), which it records as the audit annotation
``pincompute-host-admission/break-glass`` in the apiserver's audit log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pincompute import GROUP, VERSION
from pincompute.federation import cel
from pincompute.federation.host_checks import PROJECT_MISMATCH_MESSAGE
from pincompute.kinds import KINDS
from pincompute.labels import BREAK_GLASS_ANNOTATION, BREAK_GLASS_GROUP, MANAGED_BY, MANAGED_BY_LABEL, PROJECT_LABEL
from pincompute.specs import KINDS as SPECS
from pincompute.specs import METADATA
from pincompute.specs.checks import RULES, Rule
from pincompute.specs.schema import Arr, Node, Obj, Str

NAME = "pincompute-host-admission"  # the policy's and its binding's
AUDIT_KEY = "break-glass"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED = frozenset(
    {
        "as",
        "break",
        "const",
        "continue",
        "else",
        "false",
        "for",
        "function",
        "if",
        "import",
        "in",
        "let",
        "loop",
        "namespace",
        "null",
        "package",
        "return",
        "true",
        "var",
        "void",
        "while",
    }
)
"""CEL's reserved words: a field so named would need escaping (``metadata.namespace``, which the URL sets anyway)."""


@dataclass(frozen=True)
class Target:
    """One string field under rules: at ``path`` in the object, or (``within``) at ``path`` in each item of the list
    at ``within``."""

    path: tuple[str, ...]
    rules: tuple[Rule, ...]
    within: tuple[str, ...] = ()


def targets(node: Node, path: tuple[str, ...], within: tuple[str, ...] | None = None) -> Iterator[Target]:
    """Every string field under ``node`` whose checks are made of rules (one list deep; maps are left out)."""
    if path and not (_IDENTIFIER.fullmatch(path[-1]) and path[-1] not in _RESERVED):
        return
    if isinstance(node, Obj):
        for field in node.fields:
            yield from targets(field.node, (*path, field.name), within)
    elif isinstance(node, Arr) and within is None:
        yield from targets(node.items, (), path)
    elif isinstance(node, Str):
        for check in node.checks:
            if check in RULES:
                yield Target(path, RULES[check], within or ())


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _optional(root: str, path: tuple[str, ...]) -> str:
    return root + "".join(f".?{p}" for p in path)


@dataclass(frozen=True)
class Validation:
    """One target's validation and the variables its message reads (the failing item, the value's ``repr``):
    Kubernetes' CEL has no ``cel.bind``, so a value named once is a policy variable."""

    expression: str
    message: str
    variables: tuple[tuple[str, str], ...]


def _validation(target: Target, index: int) -> Validation:
    inner = _dotted(target.path)
    quoted = f"t{index}_quoted"
    if not target.within:
        value = "object." + inner
        present = _optional("object", target.path) + ".hasValue()"
        return Validation(
            f"!{present} || ({cel.all_pass(target.rules, value)})",
            f"{cel.literal(inner + ': ')} + ({cel.first_failure(target.rules, value, 'variables.' + quoted)})",
            ((quoted, cel.python_repr(value)),),
        )
    items = _optional("object", target.within) + ".orValue([])"
    item = "." + inner if inner else ""  # a list of strings: the item itself
    ok = cel.all_pass(target.rules, "x" + item)
    present = f"{_optional('x', target.path)}.hasValue()" if inner else "true"
    bad, value = f"t{index}_item", f"variables.t{index}_item{item}"
    path = (
        f"{cel.literal(_dotted(target.within) + '[')} + string({items}.indexOf(variables.{bad})) + "
        f"{cel.literal(']' + item + ': ')}"
    )
    return Validation(
        f"{items}.all(x, !{present} || ({ok}))",
        f"{path} + ({cel.first_failure(target.rules, value, 'variables.' + quoted)})",
        ((bad, f"{items}.filter(x, {present} && !({ok}))[0]"), (quoted, cel.python_repr(value))),
    )


def validations() -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The policy's validations, in the order the portal reports (the project first, then metadata, then spec),
    and the variables their messages read."""
    found: dict[Target, list[str]] = {}
    for target in targets(METADATA, ("metadata",)):
        found.setdefault(target, []).extend(KINDS)
    for kind, definition in SPECS.items():
        for target in targets(definition.schema, ("spec",)):
            found.setdefault(target, []).append(kind)
    labels = "namespaceObject.metadata.?labels"
    owner = f"{labels}[?{cel.literal(PROJECT_LABEL)}]"
    mismatch = cel.message(
        PROJECT_MISMATCH_MESSAGE,
        named="object.spec.project",
        namespace="namespaceObject.metadata.name",
        owner=f"{owner}.value()",
    )
    out = [
        _validated(
            f"!{owner}.hasValue() || object.spec.project == {owner}.value()",
            f"{cel.literal('spec.project: ')} + {mismatch}",
        )
    ]
    variables: list[dict[str, str]] = []
    for index, (target, kinds) in enumerate(found.items()):
        made = _validation(target, index)
        expression = made.expression
        if len(kinds) < len(KINDS):
            expression = f"!(request.kind.kind in {_list(kinds)}) || ({expression})"
        out.append(_validated(expression, made.message))
        variables.extend({"name": name, "expression": expr} for name, expr in made.variables)
    return out, variables


def _list(items: list[str]) -> str:
    return "[" + ", ".join(cel.literal(i) for i in items) + "]"


def _validated(expression: str, message: str) -> dict[str, Any]:
    return {"expression": f"variables.breakGlass || ({expression})", "messageExpression": message, "reason": "Invalid"}


BREAK_GLASS = (
    f"has(request.userInfo.groups) && {cel.literal(BREAK_GLASS_GROUP)} in request.userInfo.groups && "
    f"object.metadata.?annotations[?{cel.literal(BREAK_GLASS_ANNOTATION)}].orValue('').trim() != ''"
)
"""The webhook's break-glass test: the group, and a reason that is not blank."""
_BREAK_GLASS_SAID = (
    "request.userInfo.username + ' wrote ' + request.kind.kind + ' ' + request.namespace + '/' + request.name + "
    f"': ' + object.metadata.annotations[{cel.literal(BREAK_GLASS_ANNOTATION)}].trim()"
)
"""What the audit annotation says, in the webhook's words (``review.answer``)."""


def policy() -> dict[str, Any]:
    """The ValidatingAdmissionPolicy. ``failurePolicy: Fail``: an expression that cannot be evaluated refuses the
    write (the policy runs inside the apiserver, so "no replica answers" cannot happen to it)."""
    checks, variables = validations()
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": NAME, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "matchPolicy": "Equivalent",
                "resourceRules": [
                    {
                        "apiGroups": [GROUP],
                        "apiVersions": [VERSION],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": sorted(info.plural for info in KINDS.values()),
                        "scope": "Namespaced",
                    }
                ],
            },
            "matchConditions": [
                {"name": "not-being-deleted", "expression": "!has(object.metadata.deletionTimestamp)"},
                {
                    "name": "spec-written",
                    "expression": "request.operation == 'CREATE' || oldObject.spec != object.spec",
                },
            ],
            "variables": [{"name": "breakGlass", "expression": BREAK_GLASS}, *variables],
            "validations": checks,
            "auditAnnotations": [
                {"key": AUDIT_KEY, "valueExpression": f"variables.breakGlass ? {_BREAK_GLASS_SAID} : ''"}
            ],
        },
    }


def binding() -> dict[str, Any]:
    """Its binding: every namespace, refusals denied (not only warned or audited)."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": NAME, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
        "spec": {"policyName": NAME, "validationActions": ["Deny"]},
    }
