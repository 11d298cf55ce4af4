"""Compare what we want with what the apiserver holds, ignoring the fields it defaulted."""

from __future__ import annotations


def is_subset(desired: object, live: object) -> bool:
    """True when every field we set has the same value live (the apiserver may add defaults)."""
    if isinstance(desired, dict):
        return isinstance(live, dict) and all(
            key in live and is_subset(value, live[key]) for key, value in desired.items()
        )
    if isinstance(desired, list):
        return (
            isinstance(live, list)
            and len(desired) == len(live)
            and all(is_subset(d, x) for d, x in zip(desired, live, strict=True))
        )
    return bool(desired == live)
