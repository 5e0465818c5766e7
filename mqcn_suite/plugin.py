"""The pytest plugin of mqcn-conformance (entry point ``pytest11: mqcn``).

It registers every requirement ID of the catalog as a pytest marker, so that scenario tags
(``@MQCN-2.2.4-3``) become markers usable with ``-m`` and accepted by ``--strict-markers``.
"""

from __future__ import annotations

import pytest

from mqcn_model.catalog import CATALOG


def pytest_configure(config: pytest.Config) -> None:
    for requirement in CATALOG.values():
        config.addinivalue_line(
            "markers", f"{requirement.id}: [{requirement.keyword}] {requirement.statement}"
        )
