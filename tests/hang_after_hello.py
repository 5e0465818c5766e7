"""A target that answers ``hello`` and then hangs on every other call (never answers).

The suite's tests run it as ``exec:python tests/hang_after_hello.py``: a broken target must
cost seconds (``--mqcn-max-timeouts``), not a full time limit per scenario.
"""

from __future__ import annotations

import json
import sys
import time

from mqcn_suite.targets.pics import EVERYTHING


def main() -> int:
    for line in sys.stdin:
        request = json.loads(line)
        if request["method"] != "hello":
            time.sleep(3600)  # hang: never answer
            return 0
        result = {"protocol_version": 1, "name": "hangs after hello", "pics": EVERYTHING.to_json()}
        sys.stdout.write(json.dumps({"id": request["id"], "result": result}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
