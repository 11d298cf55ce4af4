"""What a command's arguments name, as kubectl reads them: ``KIND``, ``KIND NAME...`` or ``KIND/NAME...``, a kind
by any name the registry gives it (``papp``, ``pinapps``, ``apps``, ``PinApp``), ``pods``/``pod``/``po`` for the native
pods, and (``logs``) ``workload/NAME`` for a workload of any kind."""

from __future__ import annotations

from dataclasses import dataclass

from pinconsole_sdk.models import KINDS, NATIVE_WORDS, canonical_kind


class UsageError(Exception):
    """Bad command-line input: one line, exit code 2."""


POD = "pod"
WORKLOAD = "workload"  # logs workload/NAME: any kind


def kind_of(word: str) -> str:
    """``pod`` for the native pods' words, else the registry's kind (a name it does not know is kept as typed: the
    API answers it with a 404 or a 400 naming ``kind``)."""
    lowered = word.strip().lower()
    if lowered in NATIVE_WORDS:
        return POD
    if lowered in ("workload", "workloads", "all"):
        return WORKLOAD
    return canonical_kind(word)


@dataclass(frozen=True)
class Targets:
    """What ``get``/``describe``/... name: a kind (None: every kind) and names (none: the whole list)."""

    kind: str | None
    names: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()  # KIND/NAME arguments, in order

    @property
    def pods(self) -> bool:
        return self.kind == POD or any(kind == POD for kind, _ in self.pairs)


def targets(words: list[str]) -> Targets:
    """``[]`` (everything), ``[KIND]``, ``[KIND, NAME, ...]`` or ``[KIND/NAME, ...]`` (not mixed, as kubectl)."""
    if not words:
        return Targets(None)
    if "/" in words[0]:  # KIND/NAME...: every argument so (after KIND, names are taken as typed)
        if not all("/" in word for word in words):
            raise UsageError(
                "there is no need to name a kind as a separate argument with KIND/NAME: "
                f"{' '.join(words)} (use KIND NAME... or KIND/NAME...)"
            )
        pairs = []
        for word in words:
            kind, _, name = word.partition("/")
            if not kind or not name or "/" in name:
                raise UsageError(f"{word!r} is not KIND/NAME")
            pairs.append((kind_of(kind), name))
        return Targets(None, pairs=tuple(pairs))
    kind = kind_of(words[0])
    return Targets(None if kind == WORKLOAD else kind, tuple(words[1:]))


def named(words: list[str]) -> list[tuple[str, str]]:
    """Every (kind, name) ``KIND NAME...`` or ``KIND/NAME...`` names, workloads only (``delete``)."""
    found = targets(words)
    pairs = list(found.pairs) or [(found.kind or "", name) for name in found.names]
    if any(not kind or kind in (POD, WORKLOAD) for kind, _ in pairs):
        raise UsageError("name workloads: KIND NAME... or KIND/NAME... (pods are the workloads')")
    return pairs


def one(words: list[str], command: str) -> tuple[str, str]:
    """The one workload ``KIND NAME`` or ``KIND/NAME`` names (``describe``, ``scale``, ...)."""
    found = targets(words)
    pairs = list(found.pairs) or [(found.kind or "", name) for name in found.names]
    if len(pairs) != 1 or not pairs[0][0] or pairs[0][0] in (POD, WORKLOAD):
        raise UsageError(f"{command} needs one workload: {command} KIND NAME, or {command} KIND/NAME")
    return pairs[0]


def optional_one(words: list[str], command: str) -> tuple[str, str] | None:
    """``[]`` (none), else as ``one``."""
    return one(words, command) if words else None


def log_target(word: str) -> tuple[str, str]:
    """``logs``' argument: (``pod``, NAME) for ``NAME`` or ``pod/NAME``; (``workload``, NAME) for ``workload/NAME``
    or ``KIND/NAME`` of a workload kind."""
    if "/" not in word:
        return POD, word
    kind, _, name = word.partition("/")
    if not name or "/" in name:
        raise UsageError(f"{word!r} is not POD, pod/NAME, workload/NAME or KIND/NAME")
    resolved = kind_of(kind)
    if resolved in (POD, WORKLOAD):
        return resolved, name
    if resolved in KINDS:
        return WORKLOAD, name
    raise UsageError(f"{kind!r} is not a kind: logs takes POD, pod/NAME, workload/NAME or KIND/NAME")
