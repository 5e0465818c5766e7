"""Serve any Python target over the adapter protocol: the program side of ``exec:``.

    python -m mqcn_suite.targets.serve [TARGET]     # TARGET: reference (default) or python:…

It reads JSON-line requests on stdin and answers on stdout exactly as an external target must
(docs/adapter-protocol.md), so ``exec:python -m mqcn_suite.targets.serve`` is the reference
model behind a pipe: the transport's own test, and the measure of its overhead.  Options for
the suite's own tests of broken targets: ``--hang-on METHOD`` (never answer that method),
``--exit-on METHOD`` (exit without answering), ``--garbage-on METHOD`` (answer a non-JSON
line), ``--protocol-version N`` (choose N in hello).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
import uuid
from typing import Any

from mqcn_model.envelope import Envelope
from mqcn_suite.targets.base import NotApplicable, Setup, Target, TargetError, Unimplemented
from mqcn_suite.targets.pics import pics_of


def _handle(target: Target, method: str, params: dict[str, Any], args: argparse.Namespace) -> Any:
    if method == "hello":
        answer = {
            "protocol_version": args.protocol_version,
            "name": f"{target.name} (served by mqcn_suite.targets.serve)",
            "pics": pics_of(target).to_json(),
        }
        declared = getattr(target, "transport", None)  # reference:mqqb: version 2, a transport
        if callable(declared) and args.protocol_version >= 2:
            answer["transport"] = declared()
        return answer
    if method == "reset":
        if "queue_manager" in params:  # transport mode (version 2)
            target.reset(  # type: ignore[call-arg]
                Setup.from_json(params["setup"]), queue_manager=params["queue_manager"]
            )
        else:
            target.reset(Setup.from_json(params["setup"]))
        return None
    if method == "start_server":
        return target.start_server()
    if method == "deliver":
        target.deliver(Envelope.from_json(params["envelope"]))
        return None
    if method == "advance_clock":
        target.advance_clock(float(params["seconds"]))
        return None
    if method == "state":
        return target.state()
    if method == "directory_reads":
        return target.directory_reads()
    if method == "start_client":
        if "queue_manager" in params:  # transport mode (version 2)
            return target.start_client(  # type: ignore[call-arg]
                uuid.UUID(params["destination"]), queue_manager=params["queue_manager"]
            )
        return target.start_client(uuid.UUID(params["destination"]))
    if method == "send_change_notification":
        sent = target.send_change_notification(
            params["operation"], uuid.UUID(params["object"]), list(params["changed"])
        )
        return None if sent is None else [e.to_json() for e in sent]
    if method == "shutdown":
        return None
    raise KeyError(method)


def serve(target: Target, args: argparse.Namespace) -> int:
    out = sys.stdout
    for line in sys.stdin:
        try:
            request = json.loads(line)
            request_id, method = request["id"], request["method"]
            params = request.get("params", {})
        except (ValueError, KeyError, TypeError):
            print(f"serve: unreadable request line: {line!r}", file=sys.stderr)
            continue
        if method == args.hang_on:
            time.sleep(3600)
        if method == args.exit_on:
            print(f"serve: exiting on {method} as asked", file=sys.stderr)
            return 3
        if method == args.garbage_on:
            out.write("this is not JSON\n")
            out.flush()
            continue
        try:
            answer: dict[str, Any] = {
                "id": request_id,
                "result": _handle(target, method, params, args),
            }
        except (NotApplicable, Unimplemented, NotImplementedError) as exc:
            answer = {"id": request_id, "error": {"code": "not-implemented", "message": str(exc)}}
        except (KeyError, ValueError, TypeError, TargetError) as exc:
            answer = {"id": request_id, "error": {"code": "bad-request", "message": repr(exc)}}
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            answer = {"id": request_id, "error": {"code": "internal", "message": repr(exc)}}
        out.write(json.dumps(answer) + "\n")
        out.flush()
        if method == "shutdown":
            return 0
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", nargs="?", default="reference")
    parser.add_argument("--hang-on", metavar="METHOD")
    parser.add_argument("--exit-on", metavar="METHOD")
    parser.add_argument("--garbage-on", metavar="METHOD")
    parser.add_argument("--protocol-version", type=int, default=1)
    args = parser.parse_args(argv)
    from mqcn_suite.targets import resolve_target  # late: targets/__init__ imports this package

    if args.target.startswith("exec:"):
        parser.error("serving an exec: target would only add a second pipe")
    return serve(resolve_target(args.target), args)


if __name__ == "__main__":
    sys.exit(main())
