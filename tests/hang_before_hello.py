"""A target stuck in its start: it reads ``hello`` and says nothing for SECONDS (default: an
hour), having written one line on stderr; after SECONDS it answers ``hello`` and then hangs.

The suite's tests run it as ``exec:python tests/hang_before_hello.py [SECONDS]``: ``hello``
has its own time limit (``--hello-timeout``), which a slow start may need and a hung one
must not exceed, and the error says so in one line.
"""

from __future__ import annotations

import json
import sys
import time

from mqcn_suite.targets.pics import EVERYTHING

STARTING = "loading the queue manager..."


def main(argv: list[str]) -> int:
    delay = float(argv[0]) if argv else 3600.0
    sys.stderr.write(STARTING + "\n")
    sys.stderr.flush()
    request = json.loads(sys.stdin.readline())
    time.sleep(delay)
    result = {"protocol_version": 1, "name": "slow to start", "pics": EVERYTHING.to_json()}
    sys.stdout.write(json.dumps({"id": request["id"], "result": result}) + "\n")
    sys.stdout.flush()
    time.sleep(3600)  # then hang: never answer again
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
