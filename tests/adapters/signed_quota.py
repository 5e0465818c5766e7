"""The reference behind the adapter protocol, with one mapping fault: its ``state`` answers
give every queue's Quota and JournalQuota of 2**31 or more as a signed 32-bit number (the AD
Integer syntax read without the unsigned ADM mapping, errata D-05): 4294967295 is -1.

    python tests/adapters/signed_quota.py

The value is outside the adapter schema's range; the suite must judge it against the
requirement it belongs to (a ``fail`` naming the value), not call the adapter broken
(tests/test_claims.py).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mqcn_suite.targets.reference import ReferenceTarget
from mqcn_suite.targets.serve import serve

SIGNED = ("Quota", "JournalQuota")


class SignedQuota(ReferenceTarget):
    def state(self) -> dict[str, Any]:
        state = super().state()
        for queue in state["queues"].values():
            for name in SIGNED:
                if queue[name] >= 1 << 31:
                    queue[name] -= 1 << 32
        return state


if __name__ == "__main__":
    options = argparse.Namespace(hang_on=None, exit_on=None, garbage_on=None, protocol_version=1)
    sys.exit(serve(SignedQuota(), options))
