"""The suite testing itself: mutation analysis of the reference model (``mqcn selftest``).

A conformance suite is only as strong as the faults it notices.  Mutation analysis measures
that: it makes many small, deliberate faults (*mutants*) in the reference model — a ``<``
that became ``<=``, a deleted ``effects.append(...)``, an ``if`` that is always taken — and
runs the conformance scenarios against each.  A mutant the scenarios notice is *killed*; one
they do not notice *survives* and points at a requirement the scenarios check too loosely
(or at a change that makes no observable difference: an *equivalent* mutant).

Modules, in the order data flows through them:

* :mod:`.operators` — where a mutant can be made in a module's ``ast`` and what replaces it;
* :mod:`.mutants` — mutants as text edits with stable IDs, verified to parse as intended;
* :mod:`.sandbox` — copies of the project tree in which mutants run, never the work tree;
* :mod:`.guard` — the pytest plugin inside each copy: isolation check, test selection,
  per-test coverage contexts;
* :mod:`.testmap` — which scenarios execute which function (from ``coverage``), cached;
* :mod:`.state`, :mod:`.equivalents` — the resumable results file, the documented mutants;
* :mod:`.runner` — the parallel, interruptible execution of the mutants;
* :mod:`.report` — ``mutation.json``, ``mutation.md`` and the terminal summary;
* :mod:`.mutation` — the whole analysis, as ``mqcn selftest mutation`` runs it.

``docs/mutation.md`` explains how to run it and how to read its report.
"""
