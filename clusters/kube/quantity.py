"""Tiny Kubernetes quantity parser for the watch cache's aggregates.

Kept separate from ``workloads.core.quantity`` on purpose: this package must stay importable on its own
and only needs "round up to an int of millicores / bytes" so incremental sums stay exact.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

_SUFFIX: dict[str, Fraction] = {
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30),
    "Ti": Fraction(2**40), "Pi": Fraction(2**50), "Ei": Fraction(2**60),
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9),
    "T": Fraction(10**12), "P": Fraction(10**15), "E": Fraction(10**18),
}
_RE = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?$")


def parse(value: str | int | float) -> Fraction:
    """Exact value in base units; raises ValueError on garbage (callers decide whether to skip)."""
    if isinstance(value, bool):
        raise ValueError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a quantity: {value!r}")
        return Fraction(value)
    m = _RE.match(value.strip())
    if not m:
        raise ValueError(f"not a quantity: {value!r}")
    number, suffix = Fraction(m.group(1)), m.group(2) or ""
    if suffix[:1] in ("e", "E") and len(suffix) > 1:
        return number * Fraction(10) ** int(suffix[1:])
    return number * _SUFFIX[suffix]


def millicores(value: str | int | float) -> int:
    """CPU in millicores, rounded up like the apiserver does ("0.1m" -> 1)."""
    return math.ceil(parse(value) * 1000)


def to_int(value: str | int | float) -> int:
    """Bytes / counts (memory, nvidia.com/gpu), rounded up."""
    return math.ceil(parse(value))
