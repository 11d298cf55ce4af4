"""The quota page's "largest request that fits now" (``projects.fit_now``): per tier, each member's largest pod
beside the totals, with the limit that binds each resource."""

from __future__ import annotations

from typing import Any

from pincompute.largest_fit import RESOURCES, LargestFit
from pincompute.quantity import Resources, format_amount
from projects.fit_now import FitNow, TierFit


def cluster_row(fit: LargestFit) -> dict[str, Any]:
    """One member in one tier, as people read it."""
    joint = fit.joint
    return {
        "cluster": fit.cluster,
        "fits": fit.fits_any,
        "largest": {r: "—" if a is None else format_amount(r, a) for r, a in fit.largest.items()},
        "binding": {r: (fit.bounds[r][0] if fit.bounds[r] else "") for r in RESOURCES},
        "joint": ""
        if joint is None
        else f"{format_amount('cpu', joint.cpu_milli)} cpu with {format_amount('memory', joint.memory_bytes)} memory",
        "pool_free": _shown(fit.pool_free),
        "node_free": _shown(fit.node_free),
        "reasons": list(fit.reasons),
        "summary": fit.describe(),
    }


def tier_fit(t: TierFit) -> dict[str, Any]:
    best = t.best
    return {
        "tier": t.tier,
        "rows": [cluster_row(c) for c in t.clusters],
        "best": best.describe() if best is not None else "no member can run a pod of this tier now",
    }


def fit_section(fit: FitNow) -> dict[str, Any]:
    return {
        "fit_tiers": {t.tier.label: tier_fit(t) for t in fit.tiers},
        "fit_platform": _shown(fit.platform),
        "fit_problems": fit.problems,
    }


def _shown(amounts: Resources) -> dict[str, str]:
    return {r: format_amount(r, max(a, 0)) for r, a in amounts.amounts().items()}
