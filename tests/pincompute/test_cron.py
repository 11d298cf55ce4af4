from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pincompute.cron import CronError, parse_cron


def at(*args):
    return datetime(*args, tzinfo=UTC)


def test_ranges_steps_lists_and_names():
    schedule = parse_cron("*/15 9-17 * * mon-fri")
    assert schedule.matches(at(2024, 5, 6, 9, 45))  # a Monday
    assert not schedule.matches(at(2024, 5, 6, 9, 40))
    assert not schedule.matches(at(2024, 5, 5, 10, 0))  # a Sunday
    assert parse_cron("0 0 1,15 jan,jul *").matches(at(2024, 7, 15, 0, 0))


def test_day_of_month_or_day_of_week_when_both_restricted():
    schedule = parse_cron("0 0 13 * 5")
    assert schedule.matches(at(2024, 9, 13, 0, 0))  # Friday the 13th
    assert schedule.matches(at(2024, 9, 6, 0, 0))  # any Friday
    assert schedule.matches(at(2024, 5, 13, 0, 0))  # any 13th


def test_sunday_is_zero_or_seven_and_macros():
    assert parse_cron("0 0 * * 7").matches(at(2024, 5, 5, 0, 0))
    assert parse_cron("@daily").matches(at(2024, 5, 5, 0, 0))


@pytest.mark.parametrize(
    "bad",
    [
        "* * * *",
        "60 * * * *",
        "* * 0 * *",
        "5-1 * * * *",
        "*/0 * * * *",
        "@fortnightly",
        "CRON_TZ=UTC 0 0 * * *",
        "a b c d e",
    ],
)
def test_invalid_expressions(bad):
    with pytest.raises(CronError):
        parse_cron(bad)


def test_last_fire_within_window():
    schedule = parse_cron("0 9 * * *")
    assert schedule.last_fire(at(2024, 5, 6, 11, 30), timedelta(hours=3)) == at(2024, 5, 6, 9, 0)
    assert schedule.last_fire(at(2024, 5, 6, 12, 0), timedelta(hours=3)) is None


@given(
    st.integers(0, 59), st.integers(1, 30), st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1))
)
def test_every_n_minutes_fires_on_multiples(step, _unused, moment):
    schedule = parse_cron(f"*/{step + 1} * * * *")
    assert schedule.matches(moment) == (moment.minute % (step + 1) == 0)
