"""hedron 1.1.3: PollPolicy could keep polling a finished job."""

from hedron import PollPolicy

poll = PollPolicy(interval_ms=2000, stop_on_terminal=False)
