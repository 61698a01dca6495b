"""The server processes a test run starts (private PostgreSQL and Redis, gunicorn nodes, RQ
workers): each on a port chosen free when it starts, in a process group of its own, and
recorded in a marker file under .test-runs/ of this checkout until it is stopped.

A run stops what it started when it ends, also when it is interrupted (SIGINT, or SIGTERM,
which tests/conftest.py turns into the same interruption) or a set-up fails (stop_all() at the
end of the session). A run killed outright (SIGKILL) cannot: the next run reads the markers
whose run is gone and stops exactly the process groups they name, when the process there is
still the one recorded (its start time), and removes the folders they name. Nothing is ever
found or killed by its name. Used by tests/faults and bench/scale_out.py.
"""

import json
import os
import shutil
import signal
import socket
import time
from contextlib import suppress
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / ".test-runs"

# marker file -> what it records, for the servers this process started and has not stopped.
_LIVE: dict[Path, dict] = {}


def free_port() -> int:
    """A TCP port on the loopback address that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def started_at(pid: int) -> str | None:
    """The process's start time (clock ticks after boot), which tells it from a later process
    given the same pid; None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def record(kind: str, pid: int, folders=(), stop: int = signal.SIGTERM) -> Path:
    """Note that this run started process group `pid` (and made `folders`); `stop` is the
    signal that asks it to stop (PostgreSQL's immediate shutdown is SIGQUIT)."""
    RUNS.mkdir(exist_ok=True)
    me = os.getpid()
    entry = {
        "kind": kind,
        "pid": pid,
        "started": started_at(pid),
        "folders": [str(f) for f in folders],
        "stop": int(stop),
        "owner": me,
        "owner_started": started_at(me),
    }
    marker = RUNS / f"{me}-{pid}.json"
    marker.write_text(json.dumps(entry))
    _LIVE[marker] = entry
    return marker


def forget(marker: Path | None) -> None:
    """The process of `marker` was stopped and its folders removed by its owner."""
    if marker is not None:
        _LIVE.pop(marker, None)
        with suppress(FileNotFoundError):
            marker.unlink()


def _alive(pid: int, started: str | None) -> bool:
    return started is not None and started_at(pid) == started


def _stat(pid: str) -> list[str] | None:
    with suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return None


def _members(pgid: int) -> list[int]:
    """The live processes of process group `pgid` (its leader may have died before them)."""
    stats = {int(e.name): _stat(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()}
    return [pid for pid, stat in stats.items() if stat and int(stat[2]) == pgid and stat[0] != "Z"]


def _ours(pid: int, started: str | None) -> bool:
    """The group is still the one recorded: its leader is the process recorded, or it is gone
    and left members behind (a pid is not handed out again while a group of that id lives)."""
    if started_at(pid) is not None:
        return _alive(pid, started)
    return bool(_members(pid))


def _kill_group(pid: int, started: str | None, stop: int) -> None:
    """Signal the recorded process group to stop, SIGKILL what is left after a while."""
    if pid <= 1 or not _ours(pid, started):  # (a record of folders alone has no process)
        return
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, stop)
    for _ in range(100):
        if not _members(pid):
            return
        time.sleep(0.1)
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _clean(marker: Path, entry: dict) -> None:
    _kill_group(entry["pid"], entry["started"], entry.get("stop", signal.SIGTERM))
    for folder in entry["folders"]:
        shutil.rmtree(folder, ignore_errors=True)
    forget(marker)


def clean_leftovers() -> list[dict]:
    """Stop what earlier runs of this checkout started and, killed, left running; return it."""
    cleaned = []
    for marker in sorted(RUNS.glob("*.json")) if RUNS.is_dir() else []:
        try:
            entry = json.loads(marker.read_text())
        except (OSError, ValueError):
            continue
        if _alive(entry["owner"], entry["owner_started"]):
            continue  # a run still going (another session, an xdist sibling)
        _clean(marker, entry)
        cleaned.append(entry)
    return cleaned


def stop_all() -> None:
    """Stop every server this process started and has not stopped yet."""
    for marker, entry in list(_LIVE.items()):
        _clean(marker, entry)


def children() -> list[int]:
    """This process's live child processes (under pytest-xdist's controller: its workers)."""
    me = str(os.getpid())
    stats = {int(e.name): _stat(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()}
    return [pid for pid, stat in stats.items() if stat and stat[1] == me and stat[0] != "Z"]


_SIGNALLED: list[int] = []
# How long an interrupted controller waits for its workers to stop their servers (a bound for a
# state: the wait ends as soon as they are stopped).
STOP_SECONDS = 120


def _interrupted(signum, frame):
    """The first SIGTERM ends the run as Ctrl-C does; a second one while the finalizers stop the
    servers (`timeout` signals the whole group and the controller passes it on too) is not
    allowed to cut them short."""
    if _SIGNALLED:
        return
    _SIGNALLED.append(signum)
    raise KeyboardInterrupt(f"signal {signum}")


def _controller_interrupted(signum, frame):
    """pytest-xdist's controller passes SIGTERM on to its workers (each ends as on Ctrl-C and
    its finalizers stop its servers) and waits until their servers are stopped before it ends
    the run: xdist kills the workers it ends within seconds, their finalizers unrun. A second
    SIGTERM ends it at once."""
    if _SIGNALLED:
        raise KeyboardInterrupt(f"signal {signum}")
    workers = children()
    _SIGNALLED.append(signum)
    for pid in workers:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    for _ in range(STOP_SECONDS * 10):
        running = [pid for pid in workers if started_at(pid) is not None]
        if not [marker for pid in running for marker in RUNS.glob(f"{pid}-*.json")]:
            break
        time.sleep(0.1)
    raise KeyboardInterrupt(f"signal {signum}")


def stop_on_signals(controller: bool = False) -> None:
    """SIGTERM ends the run as Ctrl-C does: the fixtures' finalizers run and stop the servers."""
    signal.signal(signal.SIGTERM, _controller_interrupted if controller else _interrupted)


def pytest_configure(config):
    """A test run's hook (tests/conftest.py): servers an earlier, killed run of this checkout
    left are stopped first; SIGTERM ends this run as Ctrl-C does, finalizers and all."""
    clean_leftovers()
    controller = not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") != "no"
    stop_on_signals(controller)


def pytest_unconfigure(config):
    """Whatever server this run started and no finalizer stopped (an interrupted set-up)."""
    stop_all()
