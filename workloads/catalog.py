"""The workload catalog as users see it: the kind registry plus the icon each card shows.

What a kind is, what it is for and what it becomes live in ``pincompute.kinds``; only the icon
(a Bootstrap Icons name) is a page concern and stays here.
"""

from __future__ import annotations

from dataclasses import dataclass

from pincompute.kinds import KINDS, KindInfo

ICONS: dict[str, str] = {
    "PinPod": "box",
    "PinApp": "boxes",
    "PinScaler": "graph-up-arrow",
    "PinterestService": "hdd-network",
    "PinterestJobSet": "list-task",
    "PinterestCronJob": "clock",
    "PinterestDaemon": "hdd-stack",
    "PinterestTrainingJob": "cpu",
}
DEFAULT_ICON = "box"


@dataclass(frozen=True)
class CatalogEntry:
    info: KindInfo
    icon: str

    @property
    def kind(self) -> str:
        return self.info.kind

    @property
    def plural(self) -> str:
        return self.info.plural

    @property
    def api_version(self) -> str:
        return self.info.api_version

    @property
    def title(self) -> str:
        return self.info.title

    @property
    def category(self) -> str:
        return self.info.category.value

    @property
    def summary(self) -> str:
        return self.info.description

    @property
    def becomes(self) -> str:
        return self.info.becomes


CATALOG: tuple[CatalogEntry, ...] = tuple(
    CatalogEntry(info, ICONS.get(kind, DEFAULT_ICON)) for kind, info in KINDS.items()
)

BY_KIND = {entry.kind: entry for entry in CATALOG}
