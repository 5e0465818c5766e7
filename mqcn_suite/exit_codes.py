"""The exit codes of every ``mqcn`` command, one table below the CLI layer.

The codes sit here, not in :mod:`mqcn_suite.commands._common`, so code under the CLI (the
mutation tool of :mod:`mqcn_suite.selftest`) can name them without importing the command
layer; ``_common`` re-exports both names for the commands.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The exit codes of every ``mqcn`` command (README "Exit codes" lists the same table).

    * 0 ``OK`` — nothing wrong found: the message or the target conforms, the catalog is
      complete, the corpus or PICS was written, no divergence;
    * 1 ``FOUND`` — something is not conforming: a requirement failed, a message broke a MUST,
      an audited row is non-conforming or quarantined, a fuzz case diverged, a spec sentence
      is not in the catalog, a mutation score is below ``--min-score``;
    * 2 ``USAGE`` — the command line or an input file is wrong (one line on stderr, nothing
      done);
    * 3 ``INTERNAL`` — a bug or a broken set-up of the suite itself (one line on stderr, never
      a traceback);
    * 4 ``TARGET`` — the target broke: it kept timing out (``--max-timeouts`` in a row) or only
      errors were seen;
    * 5 ``NO_SCENARIO`` — nothing was judged: ``mqcn run`` executed no scenario (all deselected
      or skipped), the input of ``mqcn audit`` held no message — never a silent pass;
    * 130 ``INTERRUPTED`` — Ctrl-C (128 + SIGINT, as shells report it).
    """

    OK = 0
    FOUND = 1
    USAGE = 2
    INTERNAL = 3
    TARGET = 4
    NO_SCENARIO = 5
    INTERRUPTED = 130


# One short phrase per code, for ``mqcn --help`` and the README table (tests compare them).
EXIT_MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "conforming / done, nothing wrong found",
    ExitCode.FOUND: "not conforming / findings",
    ExitCode.USAGE: "usage error",
    ExitCode.INTERNAL: "internal error of the suite",
    ExitCode.TARGET: "the target broke (timeouts, errors only)",
    ExitCode.NO_SCENARIO: "nothing judged (no scenario ran, no message in the input)",
    ExitCode.INTERRUPTED: "interrupted",
}
