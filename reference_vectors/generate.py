#!/usr/bin/env python3
"""Write the Wycheproof-style reference vectors of [MS-MQCN] (``reference_vectors/*_test.json``).

Every vector is built from plain bytes (``struct``), and every expected verdict is
*stated*, by hand, from the specification: the requirement IDs a malformed vector breaks
and the byte offset of the first one, or the decoded fields of a well-formed one.  Nothing is
decoded to find out what to expect: the generator imports no codec, rule or judge, only the
constant table (PROPIDs and their wire types).  ``tests/test_vectors.py`` then checks that the
fast codec and the content rules agree with every statement.

One module per vector file, next to this one, each a list of named sections:
``propvalue_vectors`` (2.2.3), ``update_vectors`` (2.2.6), ``body_vectors`` (2.2.5),
``message_vectors`` (2.2.4) and ``content_rule_vectors`` (3.3.5.2, [MS-MQMQ]), and the
directory mapping's ``dssm_vectors`` ([MS-MQDSSM], its own schema ``dssm_schema.json``);
``vector_building`` holds what they share (fixed identities, wire pieces, the file format).
This module gathers them, adds the samples and writes (or checks) the files.

The output is deterministic (no randomness, no clock): running the generator twice writes
byte-identical files.

One exception, which holds no stated verdict: the two UserMessage Packet samples
(``samples/*.packet.bin``, :func:`packet_samples`) for ``mqcn decode --packet``.  A packet's
headers are the suite's own wire encoder's (``mqcn_model.wire``), imported by that function
alone; the body they carry is built here like every other.

Usage::

    python reference_vectors/generate.py           # (re)write the files
    python reference_vectors/generate.py --check   # exit 1 if a file on disk differs
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # runnable from a checkout without installing the package
    sys.path.insert(0, str(ROOT))

from reference_vectors.body_vectors import notification_body_file  # noqa: E402
from reference_vectors.content_rule_vectors import content_rules_file  # noqa: E402
from reference_vectors.dssm_vectors import NAME as DSSM_NAME  # noqa: E402
from reference_vectors.dssm_vectors import dssm_file  # noqa: E402
from reference_vectors.message_vectors import change_notification_message_file  # noqa: E402
from reference_vectors.propvalue_vectors import propvalue_file  # noqa: E402
from reference_vectors.update_vectors import notification_update_file  # noqa: E402
from reference_vectors.vector_building import (  # noqa: E402
    MASTER,
    QM,
    P,
    Prop,
    VectorFile,
    body_text,
    creation,
    deletion,
    queue_update,
    v1,
    v2_bytes,
)

OUT_DIR = Path(__file__).resolve().parent


# === writing ================================================================================

BUILDERS: tuple[Callable[[], VectorFile], ...] = (
    propvalue_file,
    notification_update_file,
    notification_body_file,
    change_notification_message_file,
    content_rules_file,
)


def samples() -> dict[str, bytes]:
    """Message bodies (3.3.5.3 spare byte included) to try ``mqcn decode --file`` on.

    Written to ``samples/``: two conforming messages, one of each version, and one that
    breaks a content rule (a deletion whose PROPID_D_OBJTYPE is MQDS_MACHINE).
    """
    return {
        "v1-queue-creation.bin": v1(creation()).data,
        "v1-update-and-deletion.bin": v1(
            queue_update(Prop(P.PROPID_Q_QUOTA, 2048)), deletion()
        ).data,
        "v2-change-queue.bin": v2_bytes(body_text(event="2").encode("utf-16-le")),
        "v1-bad-deletion.bin": v1(deletion(objtype=2)).data,
    }


SAMPLE_SENT_TIME = 1_704_067_200  # 2024-01-01T00:00:00Z: the packets' SentTime


def packet_samples() -> dict[str, bytes]:
    """Whole UserMessage Packets ([MS-MQMQ] 2.2.20) to try ``mqcn decode --packet`` on.

    Written to ``samples/``: a change notification (``v1-queue-creation.bin``'s body) from
    the directory server MASTER to the notification queue of QM, ``PRIVATE=<QM>\\3``, signed
    (Sig20) and identified by its queue manager GUID; and a message that is no notification:
    a text body to an application queue of QM.  Built with the suite's wire encoder
    (``envelope_to_packet``, ``encode_user_message``), SentTime fixed, so regenerating gives
    the same bytes.
    """
    from mqcn_model.constants import AuthLevel, SenderIdType, notify_queue_format_name
    from mqcn_model.envelope import Envelope, MessageId
    from mqcn_model.wire import encode_user_message, envelope_to_packet

    notification = Envelope(
        body=v1(creation()).data,
        message_id=MessageId(MASTER, 1),
        sender_identifier=MASTER,
        sender_identifier_type=SenderIdType.QueueManagerIdentifier,
        authentication_level=AuthLevel.Sig20,
        destination_format_name=notify_queue_format_name(str(QM)),
    )
    other = notification.with_(
        body="<order id='42'/>".encode("utf-16-le"),
        message_id=MessageId(MASTER, 2),
        destination_format_name=f"PRIVATE={QM}\\5",
    )
    return {
        name: encode_user_message(envelope_to_packet(env, sent_time=SAMPLE_SENT_TIME))
        for name, env in (
            ("v1-queue-creation.packet.bin", notification),
            ("not-a-notification.packet.bin", other),
        )
    }


def render(vector_file: VectorFile) -> str:
    """The exact text written for ``vector_file`` (ASCII JSON, two-space indent, final EOL)."""
    return json.dumps(vector_file.to_json(), indent=2, ensure_ascii=True) + "\n"


def build_all() -> dict[str, str]:
    """File name -> file text, for every vector file (the directory mapping's included)."""
    files = {vf.name: render(vf) for vf in (builder() for builder in BUILDERS)}
    files[DSSM_NAME] = json.dumps(dssm_file(), indent=2, ensure_ascii=True) + "\n"
    return files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if any file on disk differs")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output directory")
    args = parser.parse_args(argv)
    stale = []
    for name, text in build_all().items():
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    for name, data in {**samples(), **packet_samples()}.items():
        path = args.out / "samples" / name
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(f"samples/{name}")
        else:
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(data)
    if stale:
        print(f"stale reference vectors: {', '.join(stale)}; run {Path(__file__).name}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
