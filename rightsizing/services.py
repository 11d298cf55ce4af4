"""A workload's right-sizing advice: per container of its spec, the request, the recommendation (``model``) from
its use over the window (``history``), the saving in cores, GiB and money per month at its tier's prices, and the
document that applying it submits through the workload's edit (the edit's preview first: ``views.apply_page``).
Reads only: another tenant's workload is a 404 (``find_workload``), any member may read."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.conf import settings

from base.errors import FieldError, Invalid
from pincompute.config_refs import pod_of
from pincompute.kinds import KINDS, default_tier
from pincompute.quantity import QuantityError, parse_cpu, parse_memory
from pincompute.tiers import Tier
from rightsizing import history
from rightsizing.model import GIB, MIB, History, Recommendation, apply_to_document, monthly_saving, recommend
from usage.prices import current_prices
from usage.use_history import WINDOWS
from workloads.documents import editable
from workloads.lookup import Found, find_workload
from workloads.reads import pods_of

DEFAULT_WINDOW = "7d"  # the VPA keeps about eight days of CPU history
NO_HISTORY = "No use in this window yet: Prometheus has no samples of it, so there is no recommendation."


@dataclass(frozen=True)
class ContainerAdvice:
    container: str
    cpu_request: str | None  # as the spec says it; None: no request (the limit or the LimitRange default applies)
    memory_request: str | None
    cpu_limit: str | None
    memory_limit: str | None
    cpu_use: float | None  # the percentile of the window, cores
    memory_use: float | None  # the peak working set, bytes
    recommendation: Recommendation | None
    cpu_saving: float | None = None  # cores over the running pods (negative: the recommendation asks more)
    memory_saving_gib: float | None = None
    money_saving: Decimal | None = None  # per month
    note: str = ""

    @property
    def cpu_use_text(self) -> str:
        return "—" if self.cpu_use is None else f"{self.cpu_use * 1000:.0f}m"

    @property
    def memory_use_text(self) -> str:
        return "—" if self.memory_use is None else f"{self.memory_use / MIB:.0f}Mi"


@dataclass(frozen=True)
class Advice:
    found: Found
    window: str
    pods: int  # running now: the savings count each
    tier: str
    currency: str
    containers: list[ContainerAdvice] = field(default_factory=list)

    @property
    def recommended(self) -> dict[str, Recommendation]:
        return {c.container: c.recommendation for c in self.containers if c.recommendation is not None}

    def document(self) -> dict[str, Any]:
        """The workload's editable document with the recommended requests (what "Apply" opens in the edit)."""
        return apply_to_document(editable(self.found.obj), self.recommended)


def parse_window(raw: Any) -> str:
    window = str(raw or DEFAULT_WINDOW)
    if window not in WINDOWS:
        raise Invalid(fields=[FieldError("window", f"Use one of {', '.join(WINDOWS)}.")])
    return window


def _text(value: Any) -> str | None:
    """A quantity as text (YAML may have made ``cpu: 1`` a number)."""
    return None if value is None else str(value)


def _quantity(parser: Any, value: Any) -> int | None:
    try:
        return int(parser(value)) if value is not None else None
    except (QuantityError, ValueError, TypeError):
        return None


def _advise(container: dict[str, Any], found: History | None, pods: int, prices: tuple[Decimal, Decimal]
            ) -> ContainerAdvice:  # fmt: skip
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    cpu_req = _text(requests.get("cpu", limits.get("cpu")))
    mem_req = _text(requests.get("memory", limits.get("memory")))
    rec = recommend(found, cpu_limit_milli=_quantity(parse_cpu, limits.get("cpu")),
                    memory_limit_bytes=_quantity(parse_memory, limits.get("memory"))) if found else None  # fmt: skip
    advice = ContainerAdvice(
        container=str(container.get("name")), cpu_request=cpu_req, memory_request=mem_req,
        cpu_limit=_text(limits.get("cpu")), memory_limit=_text(limits.get("memory")),
        cpu_use=found.cpu_cores if found else None, memory_use=found.memory_bytes if found else None,
        recommendation=rec, note="" if rec else NO_HISTORY,
    )  # fmt: skip
    cpu_now, mem_now = _quantity(parse_cpu, cpu_req), _quantity(parse_memory, mem_req)
    if rec is None or cpu_now is None or mem_now is None:
        return advice
    cpu_saving = (cpu_now - rec.cpu_milli) / 1000 * pods
    memory_saving = (mem_now - rec.memory_bytes) / GIB * pods
    money = monthly_saving(cpu_saving, memory_saving, 1, *prices)
    return ContainerAdvice(**{**advice.__dict__, "cpu_saving": round(cpu_saving, 3),
                              "memory_saving_gib": round(memory_saving, 3), "money_saving": money})  # fmt: skip


def _tier(found: Found) -> str:
    raw = (found.obj.get("spec") or {}).get("tier")
    try:
        return Tier.parse(raw).label if isinstance(raw, str) else default_tier(found.kind).label
    except ValueError:
        return default_tier(found.kind).label


def workload_advice(actor: Any, project: str, kind: str, name: str, params: Any) -> Advice:
    """The advice for one workload ``actor`` may see, over ``params["window"]`` (default 7d)."""
    found = find_workload(actor, project, kind, name)
    window = parse_window(params.get("window"))
    tier = _tier(found)
    advice = Advice(found, window, 0, tier, settings.USAGE_CURRENCY)
    template = pod_of(found.obj)
    if not KINDS[found.kind].runs_pods or template is None:
        return advice
    by_cluster = pods_of(found.kind, found.project.namespace, found.name)[0]
    pods = [p for on_cluster in by_cluster.values() for p in on_cluster]
    running = sum(1 for p in pods if p.phase == "Running")
    seen = history.histories(found.project.namespace, sorted({p.name for p in pods}), WINDOWS[window])
    price = current_prices()
    prices = (price[(tier, "cpu")], price[(tier, "memory")])
    containers = [_advise(c, seen.get(str(c.get("name"))), running, prices)
                  for c in template[1].get("containers") or [] if isinstance(c, dict)]  # fmt: skip
    return Advice(found, window, running, tier, settings.USAGE_CURRENCY, containers)
