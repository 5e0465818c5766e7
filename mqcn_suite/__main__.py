"""``python -m mqcn_suite``: the ``mqcn`` command line, for when the console script is not on
``PATH`` (the program name stays ``mqcn`` in help and messages)."""

from mqcn_suite.cli import main

if __name__ == "__main__":
    main()
