"""What the Gherkin scenarios deliver and inspect, as pure functions of fixed identities.

Not the model (``mqcn_model`` knows nothing of scenarios) and not the world (no target): the
step definitions call these with :data:`~.fixtures.IDS` and hand the bytes to the target
through :class:`mqcn_suite.world.World`.  This package and the world are all that steps/
imports: what a step needs of the model (a PROPID by name, a deletion, a format-name check)
is a function here, so steps stay a line or two.

* :mod:`.fixtures` -- identities (QM_GUID, ...), ScenarioIds and IDS, existing_queue,
  directory entries and sample values;
* :mod:`.vocabulary` -- parsing what feature files write (VT names, values, PROPID pairs);
* :mod:`.messages` -- conforming messages: carriers, Quota changes, every-kind bodies, ...;
* :mod:`.defects` -- the one typed catalogue of named defects (and acceptable forms), whose
  builders live in :mod:`.breakers`;
* :mod:`.expectations` -- readers and checks: state diffs, read problems, carrier problems.
"""
