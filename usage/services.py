"""The usage app's writes: the price sheet (``set_prices``). Usage samples are written by the minute task
(``usage.tasks``: sampling and roll-up, no actor); reports are reads (``usage.queries``)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from base import audit
from base.errors import FieldError, Forbidden, Invalid, Unauthenticated
from base.permissions import is_platform_admin
from usage.costmodel import RESOURCES, TIERS
from usage.models import Price
from usage.prices import PriceRow, parse_price, price_sheet


def set_prices(tier: str, changes: dict[str, Any], *, actor: Any) -> list[PriceRow]:
    """Set some of ``tier``'s resource prices (``{"cpu": "0.04"}``); platform admins only; one audit row."""
    if not getattr(actor, "is_authenticated", False):
        raise Unauthenticated("Sign in first.")
    if not is_platform_admin(actor):
        raise Forbidden("Only platform admins may change prices.")
    if tier not in TIERS:
        raise Invalid(fields=[FieldError("tier", f"Use one of {', '.join(TIERS)}.")])
    unknown = [k for k in changes if k not in RESOURCES]
    if unknown or not changes:
        raise Invalid(fields=[FieldError(k, "is not a resource (cpu, memory, gpu)") for k in unknown]
                      or [FieldError("", "Give at least one of cpu, memory, gpu.")])  # fmt: skip
    errors, values = [], {}
    for resource, raw in changes.items():
        try:
            values[resource] = parse_price(raw, resource)
        except Invalid as exc:
            errors += exc.fields
    if errors:
        raise Invalid(fields=errors)
    with transaction.atomic():
        before = {r.resource: str(r.per_hour) for r in price_sheet() if r.tier == tier}
        for resource, value in values.items():
            Price.objects.update_or_create(
                tier=tier, resource=resource, defaults={"per_hour": value, "updated_by": actor}
            )
        after = {r.resource: str(r.per_hour) for r in price_sheet() if r.tier == tier}
        if before != after:
            audit.record(
                "prices.update", actor=actor, target_kind="price", target_name=tier, before=before, after=after,
                summary=f"{tier} prices: " + ", ".join(f"{k} {before[k]} -> {after[k]}" for k in after
                                                       if before[k] != after[k]),
            )  # fmt: skip
    return [r for r in price_sheet() if r.tier == tier]
