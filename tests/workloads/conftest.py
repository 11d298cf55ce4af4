"""``host``: the catalog's fake host apiserver with the kind pages' grants (tests/support/kinds.py), for the catalog
tests."""

from tests.support.kinds import host  # noqa: F401 - fixtures, used by name
