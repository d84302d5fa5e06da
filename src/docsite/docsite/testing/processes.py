"""Real processes for tests and replays (workers, servers): loopback only, bounded, always
stopped. ``ManagedProcess`` keeps its output in a temporary log file, waits for a line it
prints, and stops its whole process tree (``stop()`` is bounded and idempotent).
``raised_priority()`` puts the work a test times ahead of the rest of a busy machine's."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import psutil


def wait_until(
    condition: Callable[[], object], *, timeout: float, what: str, interval: float = 0.02
) -> object:
    """Poll ``condition`` until it returns a truthy value; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


#: The niceness of work whose timing a test checks against real clocks (a recipe's real run):
#: ahead of the browsers and builds beside it, and of Chromium's own main processes (-8).
TIMED_NICENESS = -10


@contextlib.contextmanager
def raised_priority(niceness: int = TIMED_NICENESS) -> Iterator[bool]:
    """Run the calling thread at ``niceness`` for the block, and with it every thread and
    process it starts meanwhile (they inherit it, and keep it); then put the thread back.

    Yields whether the priority was raised: only a user allowed to (root's ``CAP_SYS_NICE``,
    or an ``RLIMIT_NICE`` that reaches it) can; anyone else runs the block as it is.

    Example:
        >>> with raised_priority() as raised:  # doctest: +SKIP
        ...     subprocess.run(["uvicorn", "app:app"])  # at -10, if raised
    """
    before = os.getpriority(os.PRIO_PROCESS, 0)  # Linux: the calling thread's
    try:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
    except PermissionError:
        yield False
        return
    try:
        yield True
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, before)  # lowering a priority is always allowed


class ManagedProcess:
    """A subprocess with its output in a temp log file; ``stop()`` is bounded and idempotent."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        env: Mapping[str, str],
        *,
        cwd: Path,
        pythonpath: Sequence[Path] = (),
    ) -> None:
        self.name = name
        self.argv = argv
        self._logdir = tempfile.TemporaryDirectory(prefix=f"hedron-{name}-")
        self.log_path = Path(self._logdir.name) / "out.log"
        self._log = self.log_path.open("wb")
        full_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
        path = os.pathsep.join([str(cwd), *map(str, pythonpath), full_env.get("PYTHONPATH", "")])
        full_env["PYTHONPATH"] = path
        self.proc = subprocess.Popen(
            argv,
            cwd=str(cwd),
            env=full_env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log(self) -> str:
        """Everything the process wrote so far."""
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_for_log(self, text: str, *, timeout: float) -> None:
        """Wait until ``text`` appears in the output (fails early if the process exits)."""

        def seen() -> bool:
            if text in self.log():
                return True
            if not self.alive():
                raise RuntimeError(f"{self.name} exited early:\n{self.log()[-3000:]}")
            return False

        try:
            wait_until(seen, timeout=timeout, what=f"{self.name} to print {text!r}")
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}\n{self.log()[-3000:]}") from None

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to the process and every descendant (RQ's work horse runs in its own
        session, so the process group alone would miss it)."""
        try:
            children = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            children = []
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.send_signal(sig)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM the group, wait, then SIGKILL; close the log file."""
        if self.alive():
            self.kill_group(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill_group(signal.SIGKILL)
                self.proc.wait(timeout)
        else:
            self.proc.wait()
        # Children of a killed leader may linger in the group; reap them as well.
        self.kill_group(signal.SIGKILL)
        if not self._log.closed:
            self._log.close()

    def close(self) -> None:
        self.stop()
        self._logdir.cleanup()
