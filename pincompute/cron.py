"""A small five-field cron matcher: validation for CronJob specs and PinScaler schedule windows.

croniter is not a dependency; the CronJob controller only needs the expression to be valid, and
scheduled scaling only asks "when did this window last open", which a minute walk answers exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_MONTHS = {
    m: i
    for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)
}
_DAYS = {d: i for i, d in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}
_NO_NAMES: dict[str, int] = {}
_FIELDS = (
    ("minute", 0, 59, _NO_NAMES),
    ("hour", 0, 23, _NO_NAMES),
    ("day of month", 1, 31, _NO_NAMES),
    ("month", 1, 12, _MONTHS),
    ("day of week", 0, 7, _DAYS),
)
MAX_WINDOW = timedelta(days=7)
_MAX_DIGITS = 9


class CronError(ValueError):
    """The expression is invalid; the message says which field and why."""


@dataclass(frozen=True)
class CronSchedule:
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    days_restricted: bool
    weekdays_restricted: bool

    def matches(self, moment: datetime) -> bool:
        """Does the schedule fire in the minute of ``moment`` (in moment's own timezone)?"""
        if moment.minute not in self.minutes or moment.hour not in self.hours:
            return False
        if moment.month not in self.months:
            return False
        day_ok = moment.day in self.days
        weekday_ok = (moment.isoweekday() % 7) in self.weekdays
        if self.days_restricted and self.weekdays_restricted:
            return day_ok or weekday_ok  # classic cron: either restricted day field may match
        return day_ok and weekday_ok

    def last_fire(self, now: datetime, within: timedelta) -> datetime | None:
        """The latest fire time in ``(now - within, now]``, or None; bounded by MAX_WINDOW."""
        within = min(within, MAX_WINDOW)
        moment = now.replace(second=0, microsecond=0)
        while now - moment < within:
            if self.matches(moment):
                return moment
            moment -= timedelta(minutes=1)
        return None


def parse_cron(expression: str) -> CronSchedule:
    """Parse a standard five-field expression (lists, ranges, steps, names) or an @macro."""
    text = expression.strip()
    text = _MACROS.get(text.lower(), text)
    if text.startswith("@"):
        raise CronError(f"unknown macro {expression!r}")
    if "TZ=" in text:
        raise CronError("set the timezone in the timeZone field, not in the schedule")
    parts = text.split()
    if len(parts) != 5:
        raise CronError(f"expected 5 fields (minute hour day month weekday), got {len(parts)}")
    values = [_parse_field(part, *spec) for part, spec in zip(parts, _FIELDS, strict=True)]
    weekdays = frozenset(d % 7 for d in values[4])  # 7 is another Sunday
    return CronSchedule(
        values[0],
        values[1],
        values[2],
        values[3],
        weekdays,
        days_restricted=not parts[2].startswith("*"),
        weekdays_restricted=not parts[4].startswith("*"),
    )


def _parse_field(text: str, name: str, low: int, high: int, names: dict[str, int]) -> frozenset[int]:
    result: set[int] = set()
    for item in text.split(","):
        base, _, step_text = item.partition("/")
        step = 1
        if step_text:
            found = _number(step_text)
            if found is None or not 0 < found < 10**_MAX_DIGITS:
                raise CronError(
                    f"{name}: step {_shown(step_text)} must be a positive number of {_MAX_DIGITS} digits at most"
                )
            step = found
        if base in ("*", "?"):
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            start, end = _value(first, name, low, high, names), _value(last, name, low, high, names)
            if start > end:
                raise CronError(f"{name}: range {base!r} runs backwards")
        else:
            start = _value(base, name, low, high, names)
            end = high if step_text else start
        result.update(range(start, end + 1, step))
    return frozenset(result)


def _value(text: str, name: str, low: int, high: int, names: dict[str, int]) -> int:
    if text.lower() in names:
        return names[text.lower()]
    number = _number(text)
    if number is None:
        raise CronError(f"{name}: {_shown(text)} is not a number")
    if not low <= number <= high:
        shown = number if len(text) <= _MAX_DIGITS else f"a number of {len(text)} digits"
        raise CronError(f"{name}: {shown} is outside {low}-{high}")
    return number


def _number(text: str) -> int | None:
    """ASCII digits as an int, else None. ``str.isdigit`` is also true for "²" (which ``int`` refuses) and other
    scripts' digits, and ``int`` refuses over 4,300 digits: a number of more than ``_MAX_DIGITS`` digits reads as
    ``10**_MAX_DIGITS``, past every field's range and every step taken."""
    if not (text.isascii() and text.isdigit()):
        return None
    return int(text) if len(text) <= _MAX_DIGITS else 10**_MAX_DIGITS


def _shown(text: str) -> str:
    """``text`` for a message: a hostile one of thousands of characters by its start and length."""
    return repr(text) if len(text) <= 20 else f"{text[:12]!r}... ({len(text)} characters)"


def zone(name: str | None) -> ZoneInfo:
    """Resolve an IANA timezone (UTC when unset); raises CronError for an unknown name."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise CronError(f"unknown time zone {name!r}") from exc
