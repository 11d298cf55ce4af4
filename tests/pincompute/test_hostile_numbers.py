"""Numbers ``str.isdigit`` accepts but ``int`` refuses (``²`` and other non-decimal digits, over 4,300 digits) in a
cron schedule or a rollout percentage: a ``CronError`` / a field message naming the value, never a ``ValueError``
escaping the checks (a 500 on the catalog pages and the API)."""

from __future__ import annotations

import pytest

from pincompute.cron import CronError, parse_cron
from pincompute.specs.checks import cron_expression, int_or_percent

NINES = "9" * 5000


def short(value: str) -> str:
    """A readable test id for a parameter of thousands of characters."""
    return value if len(value) < 30 else f"{value[:8]}...({len(value)} chars)"


@pytest.mark.parametrize(
    "schedule",
    [
        "² * * * *",
        "*/² * * * *",
        "1-² * * * *",
        "²-5 * * * *",
        "* ² * * *",
        "٤ * * * *",  # an Arabic-Indic four: a decimal digit int() reads, but not cron's
        f"{NINES} * * * *",
        f"*/{NINES} * * * *",
        f"1-{NINES} * * * *",
        "+5 * * * *",
        "5_0 * * * *",
    ],
    ids=short,
)
def test_digits_int_refuses_or_cron_does_not_know_are_a_cron_error(schedule):
    with pytest.raises(CronError):
        parse_cron(schedule)


def test_the_schedule_check_names_the_value_and_stays_short():
    assert cron_expression("² * * * *").startswith("'² * * * *' is not a valid cron schedule")
    message = cron_expression(f"{NINES} * * * *")
    assert "is not a valid cron schedule" in message and "minute" in message and len(message) < 300


def test_plain_numbers_long_steps_and_leading_zeros_still_parse():
    assert parse_cron("05 02 * * *").minutes == frozenset({5})
    assert parse_cron("*/99999 * * * *").minutes == frozenset({0})  # Kubernetes accepts a step past the range
    assert "outside 0-59" in cron_expression("60 * * * *")


@pytest.mark.parametrize("value", ["²%", f"{'9' * 4400}%", f"{NINES}%", "٤%", "101%", "-1%", "5 %"], ids=short)
def test_a_percentage_int_cannot_read_is_a_message(value):
    message = int_or_percent(value)
    assert message is not None and "must be a count or a percentage" in message and len(message) < 300


def test_counts_and_percentages_still_pass_and_a_huge_negative_count_is_named_briefly():
    assert int_or_percent("25%") is None and int_or_percent("100%") is None and int_or_percent(3) is None
    message = int_or_percent(-(10**5000))
    assert message is not None and "must not be negative" in message and len(message) < 300
