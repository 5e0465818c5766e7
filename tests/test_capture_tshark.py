"""``mqcn run --pcap`` read by Wireshark's tshark, alone and under pytest-xdist.

The suite's own reader takes port reuse and repeated sequence numbers in its stride; Wireshark
does not, so this is the check that the capture is what a network would carry.  Each run
(one process, ``-n 2``, ``-n 3``: several sessions per worker) must give:

* one TCP conversation per message the run says it wrote, each opened by its own SYN, with
  initial sequence numbers no other session uses;
* no frame with a bad IP or TCP checksum (tshark checks both when told to), no TCP analysis
  flag (retransmission, "ACKed segment that wasn't captured", reused ports…), no malformed
  frame, no expert item of severity warning or error;
* capture times that never go back through the file, across the joined workers' parts.

Wireshark 4.0 has no MS-MQQB dissector: the port-1801 payload shows as ``data``, so the
expert check covers what Ethernet, IPv4 and TCP say, and any dissector that would try the
payload.  ``.ci/run`` installs tshark from the Debian packages; without tshark these tests
fail and say so (they do not skip).
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from capture_helpers import messages, quarantined
from test_capture_run import read_back, run

CHECKSUMS = ("-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE")
BAD_FRAMES = (
    'tcp.analysis.flags || _ws.malformed || _ws.expert.severity >= "Warning"'
    ' || tcp.checksum.status == "Bad" || ip.checksum.status == "Bad"'
)
WRITTEN = re.compile(r"mqcn pcap: .*?: (\d+) messages as MS-MQQB sessions")


def tshark(capture: Path, *args: str) -> list[str]:
    """tshark's lines on ``capture`` (a test failure, not a skip, when tshark is missing)."""
    program = shutil.which("tshark")
    if program is None:
        pytest.fail(
            "tshark is not installed: .ci/run installs it (apt-get install tshark, Debian's "
            "package); install Wireshark's tshark to run tests/test_capture_tshark.py"
        )
    done = subprocess.run(
        [program, "-n", "-r", str(capture), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("workers", [(), ("-n", "2"), ("-n", "3")], ids=["one", "n2", "n3"])
def test_wireshark_reads_every_session_as_written(tmp_path: Path, workers: tuple[str, ...]) -> None:
    result, capture, _ = run(tmp_path, *workers)
    assert result.exit_code == 0, result.output
    written = WRITTEN.search(" ".join(result.stdout.split()))
    assert written, result.stdout
    sessions = int(written.group(1))
    assert sessions >= 20  # several sessions per worker

    conversations = [line for line in tshark(capture, "-q", "-z", "conv,tcp") if "<->" in line]
    assert len(conversations) == sessions
    syns = tshark(
        capture, "-Y", "tcp.flags.syn == 1", "-T", "fields", "-e", "tcp.stream", "-e", "tcp.seq_raw"
    )
    streams = [line.split("\t")[0] for line in syns]
    assert len(syns) == 2 * sessions and len(set(streams)) == sessions  # SYN, SYN-ACK each
    assert len({line.split("\t")[1] for line in syns}) == 2 * sessions  # initial seq numbers
    assert tshark(capture, *CHECKSUMS, "-Y", BAD_FRAMES) == []

    times = [float(t) for t in tshark(capture, "-T", "fields", "-e", "frame.time_epoch")]
    assert len(times) > 10 * sessions
    # never back (the segments of one large message share its time, as documented)
    assert all(a <= b for a, b in itertools.pairwise(times)) and len(set(times)) > 10 * sessions

    records = read_back(capture)  # the suite's reader agrees: a stream per message
    assert quarantined(records) == []
    assert len({m.where.stream for m in messages(records)}) == sessions


def test_the_bad_frame_filter_catches_a_bad_checksum(tmp_path: Path) -> None:
    """The filter above is not vacuous: one flipped TCP checksum byte is one bad frame."""
    result, capture, _ = run(tmp_path)
    assert result.exit_code == 0, result.output
    data = bytearray(capture.read_bytes())
    data[24 + 16 + 14 + 20 + 16] ^= 0xFF  # the first frame's TCP checksum
    broken = tmp_path / "broken.pcap"
    broken.write_bytes(bytes(data))
    (line,) = tshark(broken, *CHECKSUMS, "-Y", BAD_FRAMES)
    assert line.split()[0] == "1" and "CHECKSUM INCORRECT" in line
