"""Exact Kubernetes quantity arithmetic.

Quotas are compared to the last millicore and byte, so quantities are parsed into ints with
``Fraction`` (never floats) and rounded up like the apiserver does for sub-unit precision. A quantity is at
most ``MAX_TEXT`` characters and ``MAX_VALUE`` base units (Kubernetes' own bound, 2^63-1): anything longer
or larger is a ``QuantityError``, never a number Python refuses to parse or print (4300 digits at most).

Not the client's ``kubernetes.utils.quantity.parse_quantity``: this is a pure module, which may not import
``kubernetes`` (the import contract), and that function returns a ``Decimal`` with no bound and no rounding to the
base unit: it reads ``NaN``, ``Infinity``, ``1e400`` and negative quantities as numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

GPU_RESOURCE = "nvidia.com/gpu"

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY = re.compile(
    r"^\+?(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?P<suffix>[eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?$"
)


MAX_TEXT = 64  # characters: "9223372036854775807" is 19; the regex and Fraction then never see megabytes
MAX_VALUE = 2**63 - 1  # base units (cores, bytes): "no quantity may represent a number greater than 2^63-1"


class QuantityError(ValueError):
    """Raised with a human sentence when a quantity string cannot be parsed."""


def _shown(value: object) -> str:
    """``value`` for a message: an integer too long to print (Python refuses beyond 4300 digits) by its size."""
    if isinstance(value, int) and abs(value) > 10**MAX_TEXT:
        return f"a number of more than {MAX_TEXT} digits"
    return repr(value)


def parse_quantity(value: str | int | float) -> Fraction:
    """Parse a Kubernetes quantity into an exact non-negative Fraction of base units, at most ``MAX_VALUE``."""
    amount = _parse(value)
    if amount > MAX_VALUE:
        raise QuantityError(f"{_shown(value)} is more than {MAX_VALUE}, the largest quantity Kubernetes takes")
    return amount


def _parse(value: str | int | float) -> Fraction:
    if isinstance(value, bool):
        raise QuantityError(f"{value!r} is not a quantity")
    if isinstance(value, int):
        if value < 0:
            raise QuantityError(f"{_shown(value)} is negative")
        return Fraction(value)
    if isinstance(value, float):
        if value < 0 or not math.isfinite(value):
            raise QuantityError(f"{value} is not a non-negative finite number")
        return Fraction(str(value))
    if not isinstance(value, str):
        raise QuantityError(f"{value!r} is not a quantity")
    text = value.strip()
    if len(text) > MAX_TEXT:
        raise QuantityError(f"{text[:12]!r}... is not a quantity: {MAX_TEXT} characters at most")
    match = _QUANTITY.match(text)
    if match is None:
        raise QuantityError(f"{value!r} is not a quantity (examples: 500m, 2, 512Mi, 1G)")
    number = Fraction(match["num"])
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix[:1] in ("e", "E") and len(suffix) > 1:
        exponent = int(suffix[1:])
        if abs(exponent) > 30:
            raise QuantityError(f"{value!r} has an exponent out of range")
        return number * Fraction(10) ** exponent
    return number * _DECIMAL[suffix]


def parse_cpu(value: str | int | float) -> int:
    """CPU in millicores, rounded up (the apiserver rounds sub-millicore precision up)."""
    return math.ceil(parse_quantity(value) * 1000)


def parse_memory(value: str | int | float) -> int:
    """Memory in bytes, rounded up."""
    return math.ceil(parse_quantity(value))


def parse_gpu(value: str | int | float) -> int:
    """GPUs are extended resources: only whole numbers are allowed."""
    amount = parse_quantity(value)
    if amount.denominator != 1:
        raise QuantityError(f"{value!r} is not a whole number of GPUs")
    return int(amount)


def format_cpu(millis: int) -> str:
    """Shortest exact CPU string: ``2`` or ``1500m``."""
    sign = "-" if millis < 0 else ""
    millis = abs(millis)
    return f"{sign}{millis // 1000}" if millis % 1000 == 0 else f"{sign}{millis}m"


def format_memory(num_bytes: int) -> str:
    """Shortest exact memory string, preferring binary suffixes: ``512Mi``, ``1G``, ``1000001``."""
    sign = "-" if num_bytes < 0 else ""
    num_bytes = abs(num_bytes)
    if num_bytes == 0:
        return "0"
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        if num_bytes % _BINARY[suffix] == 0:
            return f"{sign}{num_bytes // _BINARY[suffix]}{suffix}"
    for suffix in ("E", "P", "T", "G", "M", "k"):
        unit = int(_DECIMAL[suffix])
        if num_bytes % unit == 0:
            return f"{sign}{num_bytes // unit}{suffix}"
    return f"{sign}{num_bytes}"


RESOURCE_NAMES = ("cpu", "memory", "gpu")


def format_amount(resource: str, amount: int) -> str:
    """Format one of ``cpu`` (millicores), ``memory`` (bytes) or ``gpu`` for a human message."""
    if resource == "cpu":
        return format_cpu(amount)
    if resource == "memory":
        return format_memory(amount)
    return str(amount)


@dataclass(frozen=True)
class Resources:
    """A bundle of cpu, memory and gpu in exact integer units; may go negative in headroom maths."""

    cpu_milli: int = 0
    memory_bytes: int = 0
    gpu: int = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(self.cpu_milli + other.cpu_milli, self.memory_bytes + other.memory_bytes, self.gpu + other.gpu)

    def __sub__(self, other: Resources) -> Resources:
        return Resources(self.cpu_milli - other.cpu_milli, self.memory_bytes - other.memory_bytes, self.gpu - other.gpu)

    def __mul__(self, factor: int) -> Resources:
        return Resources(self.cpu_milli * factor, self.memory_bytes * factor, self.gpu * factor)

    __rmul__ = __mul__

    def amounts(self) -> dict[str, int]:
        """The three amounts keyed by the short names used in messages."""
        return {"cpu": self.cpu_milli, "memory": self.memory_bytes, "gpu": self.gpu}

    def fits_within(self, other: Resources) -> bool:
        return not self.exceeded_by(other)

    def exceeded_by(self, other: Resources) -> dict[str, int]:
        """How much of each resource goes beyond ``other`` (only resources that do)."""
        limit = other.amounts()
        return {name: amount - limit[name] for name, amount in self.amounts().items() if amount > limit[name]}

    def clamp_min_zero(self) -> Resources:
        return Resources(max(self.cpu_milli, 0), max(self.memory_bytes, 0), max(self.gpu, 0))

    def is_zero(self) -> bool:
        return self == Resources()

    def to_k8s(self) -> dict[str, str]:
        """Resource list as Kubernetes spells it; the gpu key is omitted when zero."""
        out = {"cpu": format_cpu(self.cpu_milli), "memory": format_memory(self.memory_bytes)}
        if self.gpu:
            out[GPU_RESOURCE] = str(self.gpu)
        return out

    @classmethod
    def from_k8s(cls, values: Mapping[str, str | int | float]) -> Resources:
        """Read cpu, memory and nvidia.com/gpu (also ``requests.``-prefixed quota keys)."""

        def pick(*keys: str) -> str | int | float | None:
            for key in keys:
                if key in values:
                    return values[key]
            return None

        cpu = pick("cpu", "requests.cpu")
        memory = pick("memory", "requests.memory")
        gpu = pick(GPU_RESOURCE, f"requests.{GPU_RESOURCE}")
        return cls(
            parse_cpu(cpu) if cpu is not None else 0,
            parse_memory(memory) if memory is not None else 0,
            parse_gpu(gpu) if gpu is not None else 0,
        )

    def describe(self) -> str:
        return ", ".join(f"{name} {format_amount(name, amount)}" for name, amount in self.amounts().items())
