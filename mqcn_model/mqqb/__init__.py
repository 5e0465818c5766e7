"""A sans-IO MS-MQQB session ([MS-MQQB] 3.1): events in, effects out, no sockets or clocks.

:class:`SessionMachine` (one per TCP connection, either role) lives in :mod:`.machine`; the
events and effects in :mod:`.events`; docs/transport.md draws the states and timers.  The
socket driver is the suite's ``transport`` package (docs/transport.md).
"""

from mqcn_model.mqqb.events import TIMERS
from mqcn_model.mqqb.machine import Role, SessionConfig, SessionMachine, State

__all__ = ["TIMERS", "Role", "SessionConfig", "SessionMachine", "State"]
