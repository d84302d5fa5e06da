"""A real run goes ahead of the rest of a busy machine: the replay's loop thread, and every
process and thread a run starts from it, run at ``TIMED_NICENESS`` where the user may raise a
priority (``docsite.testing.processes.raised_priority``, ``docsite.replay._loop``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import threading

import pytest

from docsite.replay._loop import BrowserLoop
from docsite.testing.processes import TIMED_NICENESS, raised_priority

REPORT = [sys.executable, "-c", "import os; print(os.getpriority(os.PRIO_PROCESS, 0))"]


def _child_niceness() -> int:
    return int(subprocess.run(REPORT, capture_output=True, text=True, check=True).stdout)


def test_the_block_and_what_it_starts_run_raised_then_the_thread_is_put_back() -> None:
    before = os.getpriority(os.PRIO_PROCESS, 0)
    with raised_priority() as raised:
        if not raised:
            pytest.skip("this user may not raise a priority (no CAP_SYS_NICE)")
        assert os.getpriority(os.PRIO_PROCESS, 0) == TIMED_NICENESS
        assert _child_niceness() == TIMED_NICENESS
        seen: list[int] = []
        thread = threading.Thread(target=lambda: seen.append(_child_niceness()))
        thread.start()
        thread.join()
        assert seen == [TIMED_NICENESS]  # a thread started in the block, and its process
    assert os.getpriority(os.PRIO_PROCESS, 0) == before
    assert _child_niceness() == before


def _may_raise() -> bool:
    with raised_priority() as raised:
        return raised


def test_a_user_who_may_not_raise_it_runs_the_block_as_it_is() -> None:
    script = (
        "import os\n"
        "from docsite.testing.processes import raised_priority\n"
        "with raised_priority() as raised:\n"
        "    print(raised, os.getpriority(os.PRIO_PROCESS, 0))\n"
    )
    argv = [sys.executable, "-c", script]
    if _may_raise():  # root here: the child drops the right first (util-linux's setpriv)
        if shutil.which("setpriv") is None:
            pytest.skip("needs util-linux's setpriv to drop CAP_SYS_NICE")
        argv = ["setpriv", "--bounding-set=-sys_nice", "--inh-caps=-sys_nice", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0 and done.stderr.startswith("setpriv:"):
        pytest.skip(f"setpriv could not drop CAP_SYS_NICE here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", str(os.getpriority(os.PRIO_PROCESS, 0))]


@pytest.mark.browser
def test_what_a_replay_starts_runs_ahead_of_the_machine() -> None:
    """The apps, workers and clients of a real run are started from the loop's thread, or from
    threads it starts (``asyncio.to_thread``)."""
    if not _may_raise():
        pytest.skip("this user may not raise a priority (no CAP_SYS_NICE)")

    async def starts() -> list[int]:
        child = await asyncio.create_subprocess_exec(*REPORT, stdout=asyncio.subprocess.PIPE)
        out, _ = await child.communicate()
        return [int(out), await asyncio.to_thread(_child_niceness)]

    with BrowserLoop() as loop:
        assert loop.run(starts(), timeout=60) == [TIMED_NICENESS, TIMED_NICENESS]
    assert os.getpriority(os.PRIO_PROCESS, 0) != TIMED_NICENESS  # the caller's is not raised
