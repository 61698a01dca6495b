"""The servers a test run starts are gone when it ends: at its end, when it is interrupted
(SIGTERM, as `timeout` sends it) or its set-up fails, and, when it was killed outright, at the
start of the next run, which stops only what the killed run recorded (tests/processes.py)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from contextlib import suppress
from pathlib import Path

import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisDown

from tests import processes

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not shutil.which("redis-server"), reason="no redis-server")

# A test run of its own (with the hooks tests/conftest.py takes from tests/processes.py) whose session fixture starts a private Redis
# and writes its port, then its test waits to be interrupted.
RUN = """
import os
import time
from pathlib import Path

import pytest

from tests.processes import pytest_configure, pytest_unconfigure  # noqa: F401
from tests.faults.servers import PrivateRedis

HERE = Path(__file__).parent


@pytest.fixture(scope="session")
def redis():
    server = PrivateRedis(HERE)
    server.start()
    (HERE / "pid").write_text(str(os.getpid()))
    (HERE / "port").write_text(str(server.port))
    if {leak}:
        raise RuntimeError("the set-up fails after the server started")
    try:
        yield server
    finally:
        server.stop()
"""
TEST = """
import time


def test_waits(redis):
    while True:
        time.sleep(0.1)
"""


def answers(port: int) -> bool:
    client = Redis(port=port, socket_connect_timeout=1)
    try:
        return bool(client.ping())
    except RedisDown:
        return False
    finally:
        client.close()


def start_run(folder: Path, leak: bool = False, *options: str) -> tuple[subprocess.Popen, int]:
    (folder / "conftest.py").write_text(textwrap.dedent(RUN.format(leak=leak)))
    (folder / "test_run.py").write_text(TEST)
    run = subprocess.Popen(  # noqa: S603 - our own test run
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, str(folder)],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    port_file = folder / "port"
    while not port_file.is_file() or not port_file.read_text():
        assert run.poll() is None, run.communicate()[0]
        time.sleep(0.1)
    return run, int(port_file.read_text())


def markers_of(pid: int) -> list[Path]:
    return list(processes.RUNS.glob(f"{pid}-*.json")) if processes.RUNS.is_dir() else []


@pytest.fixture
def run_folder(tmp_path):
    yield tmp_path
    processes.clean_leftovers()  # whatever a failed check left


def test_a_run_ended_by_sigterm_stops_its_servers(run_folder):
    run, port = start_run(run_folder)
    assert answers(port) and markers_of(run.pid)
    run.send_signal(signal.SIGTERM)
    output = run.communicate()[0]
    assert not answers(port), output
    assert not markers_of(run.pid)


def test_a_sigterm_to_the_xdist_controller_alone_stops_its_workers_servers(run_folder):
    """`kill <pid>` of `make test`'s pytest: its workers end as on Ctrl-C and stop their servers
    before it ends (xdist itself would kill them with their finalizers unrun)."""
    run, port = start_run(run_folder, False, "-p", "xdist.plugin", "-n", "1")
    worker = int((run_folder / "pid").read_text())
    assert worker != run.pid and answers(port) and markers_of(worker)
    run.send_signal(signal.SIGTERM)
    output = run.communicate()[0]
    assert not answers(port), output
    assert not markers_of(worker), output
    assert processes.started_at(worker) is None, output


def test_a_run_whose_set_up_fails_stops_the_server_it_started(run_folder):
    run, port = start_run(run_folder, leak=True)
    output = run.communicate()[0]
    assert "the set-up fails" in output
    assert not answers(port), output
    assert not markers_of(run.pid)


def test_the_next_run_stops_what_a_killed_run_left_and_nothing_else(run_folder):
    run, port = start_run(run_folder)
    [marker] = markers_of(run.pid)
    # A record in the same place naming a process that is not the one recorded (a pid given
    # again): it is left alone.
    bystander = subprocess.Popen(["sleep", "600"], start_new_session=True)  # noqa: S607
    stale = processes.RUNS / f"{run.pid}-{bystander.pid}.json"
    stale.write_text(
        marker.read_text().replace(f'"pid": {_pid(marker)}', f'"pid": {bystander.pid}')
    )
    try:
        run.kill()  # SIGKILL: no finalizer runs
        run.communicate()
        assert answers(port)  # the server outlived its run

        cleaned = processes.clean_leftovers()
        assert not answers(port)
        assert {entry["kind"] for entry in cleaned} >= {"redis"}
        assert not markers_of(run.pid)
        assert bystander.poll() is None  # not the recorded process: not touched
    finally:
        bystander.kill()
        bystander.wait()
        with suppress(FileNotFoundError):
            stale.unlink()


def _pid(marker: Path) -> int:
    return int(marker.name.split("-")[1].removesuffix(".json"))


def test_a_database_is_dropped_as_a_killed_runs_by_its_marker_only():
    """tests/conftest.py marks each database a run makes; the next run drops those of a run of
    this host whose owner is gone, and nothing else (another run's, a database not a run's)."""
    from tests import conftest

    mine = json.loads(conftest._marker())
    finished = subprocess.Popen(["true"])  # noqa: S607 - a process id that is gone
    finished.wait()
    killed = {**mine, conftest.MARKER: "an-earlier-run", "owner": finished.pid}
    running = {**mine, conftest.MARKER: "a-run-going-on"}  # owned by this run's owner, alive
    elsewhere = {**killed, "host": f"not-{mine['host']}"}

    def left(marker) -> bool:
        run = conftest._run_of(json.dumps(marker) if isinstance(marker, dict) else marker)
        return run is not None and conftest._left_by_a_killed_run(run)

    assert left(killed)
    assert not left(running) and not left(elsewhere) and not left(mine)
    assert not left("default administrative connection database") and not left(None)
    assert conftest._run_of(json.dumps(mine))["id"] == conftest._RUN["id"]
