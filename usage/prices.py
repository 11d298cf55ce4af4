"""The price sheet: per tier and resource, a price per unit-hour. Reserved is committed capacity (its grant is
charged whether used or not: ``costmodel.unused_reservation``), OnDemand is the list price, Preemptible sells
borrowed capacity at a discount. Platform admins change it through ``usage.services.set_prices``, which audits each
change."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from base.errors import FieldError, Invalid
from usage.costmodel import RESOURCES, TIERS, Prices
from usage.models import Price

UNITS = {"cpu": "core-hour", "memory": "GiB-hour", "gpu": "GPU-hour"}
LIST = {"cpu": Decimal("0.040000"), "memory": Decimal("0.005000"), "gpu": Decimal("2.500000")}
DISCOUNT = {"reserved": Decimal("0.70"), "ondemand": Decimal("1"), "preemptible": Decimal("0.30")}
DEFAULTS = {(t, r): (LIST[r] * DISCOUNT[t]).quantize(Decimal("0.000001")) for t in TIERS for r in RESOURCES}
MAX_PRICE = Decimal("100000")


@dataclass(frozen=True)
class PriceRow:
    tier: str
    resource: str
    unit: str
    per_hour: Decimal
    updated_at: Any = None
    updated_by: str = ""


def price_sheet() -> list[PriceRow]:
    """Every (tier, resource), the stored price or the default."""
    stored = {(p.tier, p.resource): p for p in Price.objects.select_related("updated_by")}
    rows = []
    for tier in TIERS:
        for resource in RESOURCES:
            p = stored.get((tier, resource))
            rows.append(
                PriceRow(tier, resource, UNITS[resource], p.per_hour, p.updated_at, p.updated_by.get_username())
                if p is not None and p.updated_by is not None
                else PriceRow(tier, resource, UNITS[resource], p.per_hour if p else DEFAULTS[(tier, resource)],
                              p.updated_at if p else None)
            )  # fmt: skip
    return rows


def current_prices() -> Prices:
    return {(row.tier, row.resource): row.per_hour for row in price_sheet()}


def parse_price(raw: Any, path: str) -> Decimal:
    try:
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        raise Invalid(fields=[FieldError(path, "Give a price per hour, e.g. 0.04.")]) from None
    if not value.is_finite() or value < 0 or value > MAX_PRICE or value != value.quantize(Decimal("0.000001")):
        raise Invalid(fields=[FieldError(path, f"A price is from 0 to {MAX_PRICE}, with at most 6 decimals.")])
    return value
