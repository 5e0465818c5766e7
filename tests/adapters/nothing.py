"""A vendor's first adapter: it claims a part of MS-MQCN and implements (almost) nothing.

    python tests/adapters/nothing.py --claims server.v1 [--implements deliver,advance_clock]

It answers ``hello`` (protocol version 1, a PICS claiming the ``--claims`` entries),
``reset`` and ``shutdown``, and the calls ``--implements`` names (``deliver``,
``advance_clock`` and ``start_server`` do nothing; ``start_client`` opens nothing), and
``not-implemented`` to every other call.  The suite must never give it a green
(tests/test_claims.py).
"""

from __future__ import annotations

import argparse
import json
import sys

ANSWERS = {"deliver": None, "advance_clock": None, "start_server": None, "start_client": None}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", default="server.v1", help="server.v1,client.v2,…")
    parser.add_argument("--implements", default="", help="calls answered besides reset")
    args = parser.parse_args()
    claims = set(filter(None, args.claims.split(",")))
    implemented = {"reset", "shutdown", *filter(None, args.implements.split(","))}
    pics = {
        side: {f"v{v}": f"{side}.v{v}" in claims for v in (1, 2)} for side in ("server", "client")
    }
    pics |= {"profiles": ["spec"], "workgroup": False}
    for line in sys.stdin:
        request = json.loads(line)
        method = request["method"]
        if method == "hello":
            answer = {"result": {"protocol_version": 1, "name": "nothing", "pics": pics}}
        elif method in implemented:
            answer = {"result": ANSWERS.get(method)}
        else:
            answer = {"error": {"code": "not-implemented", "message": f"no {method} yet"}}
        print(json.dumps({"id": request["id"], **answer}), flush=True)
        if method == "shutdown":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
