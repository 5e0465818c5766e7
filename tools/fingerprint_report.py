#!/usr/bin/env python3
"""List every normative sentence of [MS-MQCN] with its fingerprint and the catalog entries
that map it: the worksheet for filling ``fingerprints:`` in mqcn_model/requirements.yaml.

    python tools/fingerprint_report.py                 # ../shared/spec/MS-MQCN.md
    python tools/fingerprint_report.py --spec PATH --unmapped
    python tools/fingerprint_report.py --section 3.2.5.1

One line per sentence: ``index  scope  line  keywords  fingerprint  IDs`` then the sentence.
The catalog file stays the source of truth; ``mqcn catalog verify --spec PATH`` is the check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mqcn_model.catalog import CATALOG
from mqcn_model.spec_text import check_coverage, normative_sentences

DEFAULT_SPEC = Path(__file__).resolve().parents[1].parent / "shared" / "spec" / "MS-MQCN.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help="the spec text")
    parser.add_argument("--unmapped", action="store_true", help="only sentences no entry maps")
    parser.add_argument("--section", help="only this section (or 'note N')")
    args = parser.parse_args(argv)
    try:
        text = args.spec.read_text("utf-8-sig")
    except OSError as exc:
        print(f"fingerprint_report: {args.spec}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    coverage = check_coverage(normative_sentences(text), CATALOG.values())
    unmapped = {id(sentence) for sentence in coverage.unmapped}
    for index, (sentence, ids) in enumerate(
        zip(coverage.sentences, coverage.mapped_by, strict=True)
    ):
        if args.unmapped and id(sentence) not in unmapped:
            continue
        if args.section and args.section not in (sentence.section, sentence.scope):
            continue
        mapped = ", ".join(ids) if ids else "-- UNMAPPED --"
        keywords = "/".join(sentence.keywords)
        print(
            f"{index:4d}  {sentence.scope:9s} {sentence.line:5d}  {keywords:10s} "
            f"{sentence.fingerprint}  {mapped}"
        )
        print(f"      {sentence.text}")
    for rid, fingerprint in coverage.stale:
        print(f"stale: {rid} {fingerprint}")
    print(
        f"{len(coverage.sentences)} normative sentences, {len(coverage.unmapped)} unmapped, "
        f"{len(coverage.stale)} stale fingerprints, {coverage.entries} entries",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
