"""Where the suite finds its own trees at run time: ``features/``, ``steps/`` and
``reference_vectors/``.

The repository keeps them at its top level, beside ``mqcn_model/`` and ``mqcn_suite/``, and
a checkout (an editable install, or ``PYTHONPATH`` pointing at it) reads them there.  A wheel
(``pip install .``, ``pip install mqcn-conformance``) has no top level: ``setup.py`` maps
the three directories into the package at build time, as ``mqcn_suite/_bundled/features``,
``.../steps`` and ``.../reference_vectors``.  :func:`suite_root` is the directory holding
them: the checkout when this ``mqcn_suite`` lies in one (so an edited feature file counts at
once), else the bundled copy.

A checkout is recognised by its ``pyproject.toml`` beside ``features/`` and ``steps/``: a
``site-packages`` directory never holds a ``pyproject.toml``, whatever other distributions
put there.

>>> suite_root() in (checkout_root(), bundled_root())
True
>>> features_dir().name, steps_dir().name, reference_vectors_dir().name
('features', 'steps', 'reference_vectors')
"""

from __future__ import annotations

from pathlib import Path

# The top-level trees a wheel carries inside the package (setup.py reads this tuple).
TREES = ("features", "steps", "reference_vectors")
# The folder of mqcn_suite/ that holds them in a wheel (a namespace folder: no __init__.py).
BUNDLED = "_bundled"
# The project file beside the trees in a checkout.
PROJECT_FILE = "pyproject.toml"

_PACKAGE = Path(__file__).resolve().parent
# pytest's settings where there is no checkout's pyproject.toml (an installed wheel).
INSTALLED_INI = _PACKAGE / "pytest-run.ini"


class SuiteTreeMissing(Exception):
    """Neither a checkout nor the bundled copy holds the suite's trees (a broken install)."""


def checkout_root() -> Path:
    """Where the trees are in a checkout: the directory holding ``mqcn_suite/``."""
    return _PACKAGE.parent


def bundled_root() -> Path:
    """Where the trees are in an installed wheel: ``mqcn_suite/_bundled/``."""
    return _PACKAGE / BUNDLED


def is_checkout(root: Path) -> bool:
    """Whether ``root`` is a checkout of the project (its project file and its trees)."""
    return (root / PROJECT_FILE).is_file() and all(
        (root / tree).is_dir() for tree in ("features", "steps")
    )


def suite_root() -> Path:
    """The directory holding ``features/``, ``steps/`` and ``reference_vectors/``: the
    checkout if this is one, else the copy a wheel installed; :class:`SuiteTreeMissing`
    naming both places if neither has them."""
    checkout = checkout_root()
    if is_checkout(checkout):
        return checkout
    bundled = bundled_root()
    if all((bundled / tree).is_dir() for tree in TREES):
        return bundled
    raise SuiteTreeMissing(
        f"the suite's features/ and steps/ are neither in a checkout ({checkout}) nor in "
        f"the installed package ({bundled}); reinstall it: pip install mqcn-conformance"
    )


def features_dir() -> Path:
    """The Gherkin feature files (``features/``)."""
    return suite_root() / "features"


def steps_dir() -> Path:
    """The step definitions pytest runs (``steps/``)."""
    return suite_root() / "steps"


def reference_vectors_dir() -> Path:
    """The reference vector files (``reference_vectors/``)."""
    return suite_root() / "reference_vectors"


def replay_arguments(nodeid: str) -> list[str]:
    """The pytest arguments that name the scenario ``nodeid`` (relative to the suite root)
    from a shell: the node id itself in a checkout (run from its root, as the report says);
    from an installed wheel, its absolute path with the packaged settings and root, so that
    the line works from any directory."""
    try:
        root = suite_root()
    except SuiteTreeMissing:
        return [nodeid]
    if is_checkout(root):
        return [nodeid]
    return [f"{root.as_posix()}/{nodeid}", "-c", str(INSTALLED_INI), f"--rootdir={root}"]
