"""The Compute API's workload, operation and insight endpoints (``/api/v1/``), wired by ``console.api.urls``."""
