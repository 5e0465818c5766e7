"""Terminal text every ``mqcn`` command shares: counted nouns and text wrapped at words.

* :func:`plural` -- ``1 message``, ``2 messages``: a count and its noun, agreeing;
* :func:`hanging` -- a line's head (e.g. a requirement ID) and a long text after it, wrapped
  at word boundaries to the terminal's width, the continuation lines indented under the
  text (never a statement cut in the middle of a word).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich only where text is wrapped: the audit's planners (and so Spark's
    from rich.text import Text  # executors) use plural alone

# Continuation lines never start further right than this, however long the head.
MAX_INDENT = 24
MIN_TEXT_WIDTH = 30


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and ``noun`` agreeing in number (``nouns``: an irregular plural).

    >>> plural(1, "message"), plural(2, "message"), plural(0, "scenario")
    ('1 message', '2 messages', '0 scenarios')
    >>> plural(3, "UserMessage to another queue", "UserMessages to other queues")
    '3 UserMessages to other queues'
    """
    if count == 1:
        return f"1 {noun}"
    return f"{count} {nouns if nouns is not None else noun + 's'}"


def hanging(
    head: Text | str, text: str, width: int, style: str = "", indent: int | None = None
) -> Text:
    """``head`` followed by ``text`` wrapped at word boundaries to ``width`` columns, the
    continuation lines indented by ``indent`` columns (default: under the start of ``text``,
    at most :data:`MAX_INDENT`).

    >>> text = "a long statement that goes on and on, well past the width of the terminal"
    >>> print(hanging("  MQCN-1 ", text, 44).plain)
      MQCN-1 a long statement that goes on and
             on, well past the width of the
             terminal
    """
    from rich.text import Text

    line = Text(head) if isinstance(head, str) else head.copy()
    indent_text = " " * (min(line.cell_len, MAX_INDENT) if indent is None else indent)
    room = max(width - line.cell_len, MIN_TEXT_WIDTH)
    first, *rest = textwrap.wrap(
        text, width=room, break_long_words=False, break_on_hyphens=False
    ) or [""]
    line.append(first, style=style)
    following = textwrap.wrap(
        " ".join(rest),
        width=max(width - len(indent_text), MIN_TEXT_WIDTH),
        break_long_words=False,
        break_on_hyphens=False,
    )
    for part in following:
        line.append(f"\n{indent_text}{part}", style=style)
    return line
