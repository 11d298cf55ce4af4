"""The portal's version, as ``pyproject.toml`` names it (``tests/console/test_version.py`` holds the two equal): the
image runs the source without installing it, so package metadata cannot say it there."""

VERSION = "0.1.0"
API_VERSION = "v1"
