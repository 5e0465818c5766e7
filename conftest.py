"""Project-level pytest configuration.

The suite's pytest plugin (``mqcn_suite.plugin``: markers from the catalog, ``--mqcn-target``,
the ``world`` fixture) is loaded through its ``pytest11`` entry point once the project is
installed; this file only sets the hypothesis profiles used by the suite's own tests.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")
