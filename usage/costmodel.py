"""The cost arithmetic of chargeback, with no Django: windows, steps, aggregation and prices, in the spirit of
OpenCost's allocation API (``window``, ``step``, ``aggregate``).

Samples are stored as resource-seconds over an interval (a minute, or an hour once rolled up). What is billed in
a minute is ``max(request, use)`` per container (computed when sampled, since the max of sums is not the sum of
maxes): the cost by use; the cost by request prices the request alone, as chargeback did before use was sampled. So
every amount here is linear in time: an interval's amounts are split between steps and window edges in
proportion to the overlap, and totals are the exact sum of their parts (``Fraction``s, rounded only for show).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

RESOURCES = ("cpu", "memory", "gpu")
TIERS = ("reserved", "ondemand", "preemptible")
DIMENSIONS = ("project", "team", "cost_center", "tier", "cluster", "workload")
IDLE = "__idle__"  # pool capacity no pod requested (admins only)
UNUSED_RESERVATION = "__unused_reservation__"  # a Reserved grant's part no workload requested: still charged
REGION = ""  # the cluster of an unused reservation: a grant is regional
MAX_STEPS = 2400  # 99 days of hours (the longest relative window the schema admits)
GIB = 1 << 30
# a resource's stored unit-seconds per billed unit-hour: milli-cores, bytes and GPUs
UNIT_SECONDS = {"cpu": 1000 * 3600, "memory": GIB * 3600, "gpu": 3600}
# The calendar's last day is no window's: a step or an edge past it (datetime.max) cannot be computed or shown.
LATEST_END = datetime(9999, 12, 31, tzinfo=UTC)
_DURATION = re.compile(r"^(\d{1,5})([mhd])$")
_UNIT = {"m": 60, "h": 3600, "d": 86400}


class CostInputError(ValueError):
    """A window, step or aggregate that cannot be read; ``parameter`` names it."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True, slots=True)
class Amounts:
    """Resource-seconds: milli-core-seconds, byte-seconds, GPU-seconds (exact; fractions after a split)."""

    cpu: Fraction | int = 0
    memory: Fraction | int = 0
    gpu: Fraction | int = 0

    def __add__(self, other: Amounts) -> Amounts:
        return Amounts(self.cpu + other.cpu, self.memory + other.memory, self.gpu + other.gpu)

    def scaled(self, factor: Fraction) -> Amounts:
        return Amounts(self.cpu * factor, self.memory * factor, self.gpu * factor)

    def of(self, resource: str) -> Fraction:
        return Fraction(self.cpu if resource == "cpu" else self.memory if resource == "memory" else self.gpu)

    @classmethod
    def make(cls, cpu: int | Fraction = 0, memory: int | Fraction = 0, gpu: int | Fraction = 0) -> Amounts:
        """Whole resource-seconds stay ints (fast sums); only a split makes fractions."""
        return cls(cpu, memory, gpu)


ZERO = Amounts()


@dataclass(frozen=True, slots=True)
class Record:
    """Stored samples over ``[start, end)`` for one key: what was requested, used and billed (an idle record's
    request is the idle by request, its billable the idle by use)."""

    start: datetime
    end: datetime
    project: str
    tier: str
    cluster: str
    workload: str
    request: Amounts
    billable: Amounts
    team: str = ""
    cost_center: str = ""
    use: Amounts = ZERO

    @property
    def idle(self) -> bool:
        return self.workload == IDLE


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime

    @property
    def seconds(self) -> int:
        return int((self.end - self.start).total_seconds())


Prices = Mapping[tuple[str, str], Decimal]  # (tier, resource) -> price per unit-hour


@dataclass
class Allocation:
    """One aggregate's usage and cost in one step (exact). Billed and requested amounts are kept per tier and priced
    when read: a price is linear, so pricing the sum is pricing each sample. ``cost`` is by use, ``request_cost``
    by request."""

    name: str
    properties: dict[str, str]
    prices: Prices = field(default_factory=dict, repr=False)
    request: Amounts = ZERO
    billable: Amounts = ZERO
    use: Amounts = ZERO
    by_tier: dict[str, Amounts] = field(default_factory=dict)
    request_by_tier: dict[str, Amounts] = field(default_factory=dict)

    def _priced(self, by_tier: dict[str, Amounts]) -> dict[str, Fraction]:
        return {
            r: sum((a.of(r) * _price(self.prices, t, r) for t, a in by_tier.items()), Fraction(0)) / UNIT_SECONDS[r]
            for r in RESOURCES
        }

    @property
    def cost(self) -> dict[str, Fraction]:
        return self._priced(self.by_tier)

    @property
    def request_cost(self) -> dict[str, Fraction]:
        return self._priced(self.request_by_tier)

    @property
    def total_cost(self) -> Fraction:
        return sum(self.cost.values(), Fraction(0))

    @property
    def total_request_cost(self) -> Fraction:
        return sum(self.request_cost.values(), Fraction(0))

    def add(self, tier: str, request: Amounts, billable: Amounts, use: Amounts = ZERO) -> None:
        self.request, self.billable, self.use = self.request + request, self.billable + billable, self.use + use
        self.by_tier[tier] = self.by_tier.get(tier, ZERO) + billable
        self.request_by_tier[tier] = self.request_by_tier.get(tier, ZERO) + request

    def merge(self, other: Allocation) -> None:
        self.request, self.billable, self.use = (
            self.request + other.request, self.billable + other.billable, self.use + other.use
        )  # fmt: skip
        for mine, theirs in ((self.by_tier, other.by_tier), (self.request_by_tier, other.request_by_tier)):
            for tier, amounts in theirs.items():
                mine[tier] = mine.get(tier, ZERO) + amounts


def _price(prices: Prices, tier: str, resource: str) -> Fraction:
    return Fraction(prices.get((tier, resource), Decimal(0)))


@dataclass
class Step:
    start: datetime
    end: datetime
    allocations: dict[str, Allocation] = field(default_factory=dict)

    @property
    def total_cost(self) -> Fraction:
        return sum((a.total_cost for a in self.allocations.values()), Fraction(0))

    @property
    def total_request_cost(self) -> Fraction:
        return sum((a.total_request_cost for a in self.allocations.values()), Fraction(0))


@dataclass
class Report:
    window: Window
    step: int
    aggregate: tuple[str, ...]
    steps: list[Step]
    pools: list[Any] = field(default_factory=list)  # admins: idle cost per member pool (``usage.idlecost``)

    def totals(self) -> dict[str, Allocation]:
        """Each aggregate over the whole window: the sum of its steps."""
        out: dict[str, Allocation] = {}
        for step in self.steps:
            for name, a in step.allocations.items():
                out.setdefault(name, Allocation(name, dict(a.properties), a.prices)).merge(a)
        return out

    @property
    def total_cost(self) -> Fraction:
        return sum((s.total_cost for s in self.steps), Fraction(0))

    @property
    def total_request_cost(self) -> Fraction:
        return sum((s.total_request_cost for s in self.steps), Fraction(0))


# --- parameters ---------------------------------------------------------------------------------------------


def _duration(text: str, parameter: str) -> int:
    match = _DURATION.match(text)
    if not match or int(match.group(1)) == 0:
        raise CostInputError(parameter, f"{text!r} is not a duration; give a number and m, h or d, e.g. 1h or 7d.")
    return int(match.group(1)) * _UNIT[match.group(2)]


def _instant(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CostInputError("window", f"{text!r} is not an ISO 8601 date or time.") from None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def parse_window(text: str, now: datetime, *, earliest: datetime | None = None) -> Window:
    """``24h``, ``7d``, ``30m`` (ending now), ``today``, ``yesterday``, ``week``, ``month`` (UTC), or an ISO range
    ``start,end``. Whole minutes: samples are minutes, so a second-precise edge would only split one."""
    text = text.strip()
    now = now.astimezone(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)  # the current minute counts
    midnight = (now - timedelta(minutes=1)).replace(hour=0, minute=0)
    if text == "today":
        window = Window(midnight, now)
    elif text == "yesterday":
        window = Window(midnight - timedelta(days=1), midnight)
    elif text == "week":
        window = Window(midnight - timedelta(days=midnight.weekday()), now)
    elif text == "month":
        window = Window(midnight.replace(day=1), now)
    elif "," in text:
        first, _, second = text.partition(",")
        window = Window(_instant(first), _instant(second))
        if window.start.second or window.start.microsecond or window.end.second or window.end.microsecond:
            raise CostInputError("window", "A window's edges are whole minutes (samples are minutes).")
    else:
        window = Window(now - timedelta(seconds=_duration(text, "window")), now)
    if window.end <= window.start:
        raise CostInputError("window", "The window ends before it starts.")
    if window.end > LATEST_END:
        raise CostInputError("window", f"A window ends by {LATEST_END:%Y-%m-%dT%H:%MZ}: the calendar ends a day later.")
    if earliest is not None and window.start < earliest:
        raise CostInputError("window", f"The window starts before the oldest data kept ({earliest.isoformat()}).")
    return window


def parse_step(text: str | None, window: Window) -> int:
    """Seconds per step: ``1h``, ``1d``, ``6h``... (aligned to UTC hours/days from the epoch) or ``window`` (one
    step). At most ``MAX_STEPS`` steps, and a step of whole hours (hourly roll-ups are not split further)."""
    if text is None or text == "window":
        return window.seconds
    seconds = _duration(text.strip(), "step")
    if seconds % 3600:
        raise CostInputError("step", "A step is whole hours or days (e.g. 1h, 6h, 1d), or 'window'.")
    if window.seconds / seconds > MAX_STEPS:
        raise CostInputError("step", f"That is over {MAX_STEPS} steps for this window; take a longer step.")
    return seconds


def parse_aggregate(text: str | None, allowed: Sequence[str] = DIMENSIONS) -> tuple[str, ...]:
    """One or more of ``allowed``, comma-separated (``team,tier``); a repeated name counts once."""
    names = tuple(dict.fromkeys(part.strip() for part in ("project" if text is None else text).split(",")))
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise CostInputError("aggregate", f"Aggregate by one or more of {', '.join(allowed)}.")
    return names


# --- arithmetic ---------------------------------------------------------------------------------------------


def step_edges(window: Window, step: int) -> list[tuple[datetime, datetime]]:
    """The steps covering the window: aligned to multiples of ``step`` from the epoch (UTC days and hours), the
    first and last clipped to the window; one step when ``step`` is the window's length."""
    if step >= window.seconds:
        return [(window.start, window.end)]
    epoch, size = datetime(1970, 1, 1, tzinfo=UTC), timedelta(seconds=step)
    edges = []
    cursor = window.start
    while cursor < window.end:
        after = ((cursor - epoch) // size + 1) * size  # the next aligned edge, from the epoch
        # Clipped before it becomes a datetime: the edge after the window's end may be past the calendar's end.
        nxt = window.end if after >= window.end - epoch else epoch + after
        edges.append((cursor, nxt))
        cursor = nxt
    return edges


def key_of(record: Record, aggregate: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """The aggregate's name and properties; idle capacity is always its own ``__idle__`` row."""
    if record.idle:
        return IDLE, dict.fromkeys(aggregate, IDLE)
    props = {dim: str(getattr(record, dim)) for dim in aggregate}
    return "/".join(props[d] for d in aggregate), props


class Spanned(Protocol):
    @property
    def start(self) -> datetime: ...
    @property
    def end(self) -> datetime: ...


def split(record: Spanned, start: datetime, end: datetime) -> Fraction:
    """The share of ``record``'s interval inside ``[start, end)``."""
    total = (record.end - record.start).total_seconds()
    inside = (min(end, record.end) - max(start, record.start)).total_seconds()
    return Fraction(0) if total <= 0 or inside <= 0 else Fraction(int(inside)) / Fraction(int(total))


def allocate(
    records: Iterable[Record],
    window: Window,
    step: int,
    aggregate: tuple[str, ...],
    prices: Prices,
    *,
    include_idle: bool = False,
) -> Report:
    """Each step's allocations: every record's amounts split over the steps it overlaps inside the window, summed
    by aggregate, priced by its tier. Idle records count only with ``include_idle``."""
    steps = [Step(s, e) for s, e in step_edges(window, step)]
    for record in records:
        if record.idle and not include_idle:
            continue
        if record.end <= window.start or record.start >= window.end:
            continue
        name, props = key_of(record, aggregate)
        for each in _overlapping(steps, record):
            allocation = each.allocations.get(name)
            if allocation is None:
                allocation = each.allocations[name] = Allocation(name, props, prices)
            if each.start <= record.start and record.end <= each.end:  # wholly inside: no split
                allocation.add(record.tier, record.request, record.billable, record.use)
                continue
            share = split(record, each.start, each.end)
            if share:
                allocation.add(record.tier, record.request.scaled(share), record.billable.scaled(share),
                               record.use.scaled(share))  # fmt: skip
    return Report(window, step, aggregate, steps)


def _overlapping(steps: list[Step], record: Record) -> list[Step]:
    lo, hi = 0, len(steps)
    while lo < hi:  # the first step ending after the record starts
        mid = (lo + hi) // 2
        if steps[mid].end <= record.start:
            lo = mid + 1
        else:
            hi = mid
    out = []
    for each in steps[lo:]:
        if each.start >= record.end:
            break
        out.append(each)
    return out
