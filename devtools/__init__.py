"""Developer tooling, not part of the portal: the local control plane, the bootstrap, the dev stack and
its demo data, and what the benchmarks and the test harness share.

Not installed with the portal's wheel, and the product imports nothing from here. This module imports
nothing either: manage.py imports ``devtools.bootstrap`` with the system Python before any dependency
exists.
"""
