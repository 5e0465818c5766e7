"""Subcommands of ``mqcn`` that live in their own modules (registered on the app in cli.py)."""
