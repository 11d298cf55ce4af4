"""The catalog is the kind registry plus icons: every kind appears once, with its own icon."""

from pincompute.kinds import KINDS
from workloads.catalog import CATALOG, ICONS


def test_the_catalog_lists_every_registered_kind_once_in_registry_order():
    assert [entry.kind for entry in CATALOG] == list(KINDS)
    assert all(entry.plural == KINDS[entry.kind].plural for entry in CATALOG)


def test_every_kind_has_an_icon_of_its_own():
    assert set(ICONS) == set(KINDS)
    assert len(set(ICONS.values())) == len(ICONS)
    assert all(entry.icon == ICONS[entry.kind] for entry in CATALOG)
