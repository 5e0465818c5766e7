"""A target that serves the reference model and hangs once, on its third ``deliver``.

    python tests/hang_mid_hypothesis.py LOG

The suite's tests run it as ``exec:python tests/hang_mid_hypothesis.py LOG`` on a scenario
whose step draws its messages with hypothesis (``World.problems_for``): the hang comes in the
middle of the generated examples.  Each start of the program appends ``start`` to LOG, and the
hang ``hang``; a program started after a hang (the suite restarts a broken target) never
hangs.  So an example replayed after the hang passes -- what made hypothesis report a
FlakyFailure in an exception group instead of the scenario's one-line ``error`` -- and LOG
shows how often the target was started and hung.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mqcn_model.envelope import Envelope
from mqcn_suite.targets import ReferenceTarget
from mqcn_suite.targets.serve import serve

HANG_ON_DELIVERY = 3


class HangsOnce(ReferenceTarget):
    """The reference model; the third message delivered is never answered, unless LOG says
    an earlier program already hung."""

    def __init__(self, log: Path) -> None:
        super().__init__()
        self.log = log
        self.deliveries = 0

    def deliver(self, envelope: Envelope) -> None:
        self.deliveries += 1
        if self.deliveries == HANG_ON_DELIVERY and "hang" not in self.log.read_text().split():
            with self.log.open("a") as log:
                log.write("hang\n")
            time.sleep(3600)  # hang: never answer
        super().deliver(envelope)


def main(argv: list[str]) -> int:
    log = Path(argv[0])
    with log.open("a") as stream:
        stream.write("start\n")
    args = argparse.Namespace(hang_on=None, exit_on=None, garbage_on=None, protocol_version=1)
    return serve(HangsOnce(log), args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
