"""The host's ValidatingAdmissionPolicy (``federation.host_policy``) is generated from the library's checks: its
CEL carries the same limits and patterns the Python checks apply, its messages the same sentences. (The apiserver
evaluating it is tested in tests/pincompute/operator/federation/test_host_admission_policy.py.)"""

from __future__ import annotations

import re

import pytest

from pincompute.federation import cel
from pincompute.federation.host_checks import PROJECT_MISMATCH_MESSAGE
from pincompute.federation.host_policy import AUDIT_KEY, NAME, binding, policy
from pincompute.kinds import KINDS
from pincompute.labels import BREAK_GLASS_ANNOTATION, BREAK_GLASS_GROUP, PROJECT_LABEL
from pincompute.specs import checks as c

SPEC = policy()["spec"]


def validation(path: str) -> dict[str, str]:
    """The rule validation whose message starts with ``path`` (``spec.zones[`` for a list's items); the first
    validation is the project match."""
    return next(v for v in SPEC["validations"][1:] if v["messageExpression"].startswith(cel.literal(path)[:-1]))


def longest_accepted(check: object) -> int:
    """The longest run of ``a`` the Python check accepts: its length limit, found by its behaviour."""
    assert callable(check)
    return max(n for n in range(1, 300) if check("a" * n) is None)


def patterns(expression: str) -> list[str]:
    """The regular expressions of its ``matches`` calls (which, like ``re.search``, match anywhere unless anchored)."""
    return [
        cel_text.encode().decode("unicode_escape")
        for cel_text in re.findall(r'\.matches\("((?:[^"\\]|\\.)*)"\)', expression)
    ]


@pytest.mark.parametrize(
    ("path", "check"),
    [
        ("metadata.name", c.workload_name),
        ("spec.project", c.workload_name),
        ("spec.team", c.label_value),
        ("spec.template.containers[", c.container_name),
        ("spec.ingress.host", c.dns_subdomain),
    ],
)
def test_each_length_limit_is_the_python_checks(path, check):
    expression = validation(path)["expression"]
    limits = [int(n) for n in re.findall(r"size\([^)]*\) <= (\d+)", expression)]

    assert limits == [longest_accepted(check)]


@pytest.mark.parametrize(
    "value", ["web", "w", "9web", "web-", "-web", "Web", "web.v2", "web_1", "a1-b2", "w" * 40, "w" * 41, "x y", "é"]
)
def test_the_name_patterns_accept_exactly_what_the_python_check_accepts(value):
    expression = validation("metadata.name")["expression"]
    limit = int(re.findall(r"size\([^)]*\) <= (\d+)", expression)[0])

    cel_accepts = len(value) <= limit and all(re.search(p, value) for p in patterns(expression))

    assert cel_accepts == (c.workload_name(value) is None)


@pytest.mark.parametrize("value", ["registry.local/team/app:1.2.3", "app", "Registry/UPPER", "a b", "", "x:"])
def test_the_image_pattern_is_the_python_checks(value):
    expression = validation("spec.template.containers[")["expression"]  # name first, then image, then workingDir
    image = next(
        v for v in SPEC["validations"] if "].image: " in v["messageExpression"] and "template" in v["messageExpression"]
    )

    cel_accepts = all(re.search(p, value) for p in patterns(image["expression"]))

    assert expression != image["expression"]
    assert cel_accepts == (c.image_ref(value) is None)


def test_messages_are_the_python_sentences():
    name = validation("metadata.name")["messageExpression"]
    mismatch = SPEC["validations"][0]

    for rule in c.WORKLOAD_NAME_RULES:
        for text in re.split(r"\{[^}]*\}", rule.message):
            assert cel.literal(text)[1:-1] in name
    for text in re.split(r"\{[^}]*\}", PROJECT_MISMATCH_MESSAGE):
        assert cel.literal(text)[1:-1] in mismatch["messageExpression"]
    assert cel.literal(PROJECT_LABEL) in mismatch["expression"]
    assert mismatch["messageExpression"].startswith(cel.literal("spec.project: "))


def test_every_workload_kind_every_write_and_break_glass_with_its_audit():
    rules = SPEC["matchConstraints"]["resourceRules"]
    glass = SPEC["variables"][0]

    assert sorted(rules[0]["resources"]) == sorted(info.plural for info in KINDS.values())
    assert rules[0]["operations"] == ["CREATE", "UPDATE"]
    assert SPEC["failurePolicy"] == "Fail"
    assert glass["name"] == "breakGlass"
    assert cel.literal(BREAK_GLASS_GROUP) in glass["expression"]
    assert cel.literal(BREAK_GLASS_ANNOTATION) in glass["expression"]
    assert all(v["expression"].startswith("variables.breakGlass || ") for v in SPEC["validations"])
    assert all(v["reason"] == "Invalid" for v in SPEC["validations"])
    assert [a["key"] for a in SPEC["auditAnnotations"]] == [AUDIT_KEY]
    assert binding()["spec"] == {"policyName": NAME, "validationActions": ["Deny"]}


def test_python_repr_in_cel_quotes_as_python_does():
    """The CEL text for each of repr's cases (the apiserver test runs one with a quote)."""
    said = cel.python_repr("v")

    assert said.startswith('(v.contains("\'") && !v.contains("\\"") ? ')
    assert cel.message("{value!r} is {n}", value="v", n="string(n)") == f'{said} + " is " + string(n)'
