"""The portal's wheel ships every product package and no dev tooling."""

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_holds_the_product_packages_and_not_devtools():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped = find_packages(where=str(ROOT), include=config["packages"]["find"]["include"])

    assert {name.split(".")[0] for name in shipped} == {
        "accounts",
        "base",
        "clusters",
        "configs",
        "console",
        "debugging",
        "notifications",
        "pincompute",
        "projects",
        "rightsizing",
        "robots",
        "search",
        "tools",
        "usage",
        "webhooks",
        "workloads",
    }
    assert not any(name.startswith("devtools") for name in config.get("package-data", {}))
