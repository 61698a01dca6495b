"""Faults, with real parts: Redis stopped in the middle, PostgreSQL restarted under running web
processes, an RQ worker killed (SIGKILL) in the middle of a job (in a work horse, and a mail job
in the worker's own process), and a full upload area.

Each test leaves both private servers running (the `up` fixture puts back what it stopped).
"""

import csv
import io
import json
import os
import random
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from email import message_from_bytes, policy
from pathlib import Path

import psycopg
import pytest
from PIL import Image

from tests import processes
from tests.faults import servers
from tests.faults.conftest import ADMIN, SELLER
from tests.mail._smtp import SMTPStub

RUN_FIELD = "SELECT {} FROM import_run WHERE id = %s"
MOUNT, UMOUNT = shutil.which("mount") or "/bin/mount", shutil.which("umount") or "/bin/umount"


def until(check, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {seconds:g} s")


@pytest.fixture(scope="module")
def web(stack):
    """One node with two web processes, kept running through every fault of this module; its
    address is `.port`."""
    port = processes.free_port()
    proc = stack.node("solo", [port], workers=2)
    proc.port = port
    yield proc
    proc.stop()


@contextmanager
def worker(stack, name: str = "worker", **extra):
    proc = stack.worker(name, **extra)
    try:
        yield proc
    finally:
        proc.stop()


def forgot_password(port: int, email: str) -> int:
    status, headers, html = servers.get(port, "/login")
    cookie = headers["Set-Cookie"].split(";", 1)[0]
    status, _, _ = servers.request(
        port, "POST", "/api/auth/forgot-password", json.dumps({"email": email}),
        {"Content-Type": "application/json", "Cookie": cookie,
         "X-CSRFToken": servers.csrf_of(html)},
    )  # fmt: skip
    return status


def mails(stack) -> list[str]:
    rows = stack.pg.execute(
        "SELECT status FROM email_message WHERE to_address = %s ORDER BY id", (SELLER,)
    )
    return [status for (status,) in rows]


# --- (a) Redis stops in the middle -------------------------------------------------------------


def test_with_redis_down_pages_answer_and_no_job_is_lost(up, web):
    stack = up
    stack.pg.execute("DELETE FROM email_message")
    cookie = servers.sign_in(web.port, SELLER)
    # No worker yet: the job waits in Redis, which then dies (SIGKILL) in the middle.
    assert forgot_password(web.port, SELLER) == 200
    assert mails(stack) == ["queued"]
    stack.redis.stop()

    # Pages answer: public, signed in, and a public page whose rate limit lives in Redis.
    assert servers.get(web.port, "/login")[0] == 200
    status, _, html = servers.get(web.port, "/begcare", cookie)
    assert status == 200 and "Sara Faultless" in html
    assert servers.get(web.port, "/my-events/calendar/no-such-token.ics")[0] == 404
    # A job sent while Redis is down runs inline: the mail is delivered at once.
    assert forgot_password(web.port, SELLER) == 200
    assert mails(stack) == ["queued", "stored"]

    stack.redis.start()  # its append-only file still holds the waiting job
    with worker(stack):
        until(lambda: mails(stack)[0] == "stored", 60, "the waiting job runs after Redis")
        assert forgot_password(web.port, SELLER) == 200  # and the queue works again
        until(lambda: mails(stack) == ["stored"] * 3, 60, "a new job runs on the worker")


# --- (b) PostgreSQL restarts under running web processes -----------------------------------------


def children(proc) -> list[str]:
    pid = proc.proc.pid
    return sorted(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())


def test_after_a_postgres_restart_the_next_request_succeeds(up, web):
    stack = up
    cookie = servers.sign_in(web.port, SELLER)
    for _ in range(6):  # both web processes hold a pooled connection now
        assert servers.get(web.port, "/begcare", cookie)[0] == 200
    before = children(web)
    stack.pg.restart()  # every open connection is cut
    for _ in range(6):
        status, _, html = servers.get(web.port, "/begcare", cookie)
        assert status == 200, html[-500:]
    assert forgot_password(web.port, SELLER) == 200  # a write too
    assert children(web) == before  # the same web processes, none restarted


# --- (c) an RQ worker killed in the middle of a job ---------------------------------------------


def import_file(rows: int, first_state: int, rest_state: int, division: str) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["regno", "brand", "model", "state", "division"])
    for n in range(rows):
        letters = "".join(chr(65 + (n // 26**k) % 26) for k in range(3))
        state = first_state if n < 1000 else rest_state
        writer.writerow([f"{letters}{n % 100:02d}{n // 100 % 10}", "Volvo", "V70", state, division])
    return out.getvalue().encode()


def queue_one_job(stack, work, **config):
    """Run `work()` in the test's own app as one request, with `config` set, whose commit sends
    the one job it queued to the private Redis, as the app's own requests do (jobs.enqueue, then
    jobs.dispatch after the commit); returns what `work` returned."""
    from app.core import jobs
    from app.extensions import db

    app = stack.app
    saved = {name: app.config.get(name) for name in ("REDIS_URL", *config)}
    app.config.update(REDIS_URL=stack.redis.url, **config)
    try:
        with app.test_request_context():
            found = work()
            db.session.commit()
            assert jobs.dispatch() == 1
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()
            return found
    finally:
        app.config.update(saved)


def queue_import(stack, content: bytes) -> tuple[int, int, int]:
    """An import run queued by the app's own code, as the admin's Start button does; returns
    (run id, instance id, division id)."""
    from sqlalchemy import select

    from app.admin.models import ImportRun
    from app.auth.models import User
    from app.core import jobs
    from app.core.models import Division
    from app.core.tenancy import activate
    from app.extensions import db

    def start():
        admin = db.session.scalars(select(User).where(User.email == ADMIN)).one()
        activate(admin.home_instance_id)
        division = db.session.scalars(select(Division).order_by(Division.id)).first()
        run = ImportRun(
            instance_id=admin.home_instance_id, user_id=admin.id, filename="cut.csv",
            module="begcare", content=content, status="queued",
        )  # fmt: skip
        db.session.add(run)
        db.session.flush()
        jobs.enqueue("app.admin.imports:run_import", run.id)
        return run.id, admin.home_instance_id, division.id

    return queue_one_job(stack, start)


def test_a_worker_killed_mid_job_is_retried_and_the_job_done_once(up):
    stack = up
    division = stack.scalar("SELECT name FROM division ORDER BY id LIMIT 1")
    content = import_file(1500, first_state=2, rest_state=3, division=division)
    run_id, instance_id, division_id = queue_import(stack, content)
    # Chunk 1 (1,000 vehicles in state 2) commits; chunk 2 (state 3) waits for the counter row
    # this test holds, so the worker is cut off with half the job committed.
    stack.pg.execute(
        "INSERT INTO item_state_count (instance_id, module, division_id, state, count) "
        "VALUES (%s, 'begcare', %s, 3, 0) ON CONFLICT DO NOTHING",
        (instance_id, division_id),
    )
    lock = psycopg.connect(stack.pg.dsn())
    lock.execute(
        "SELECT * FROM item_state_count WHERE instance_id = %s AND module = 'begcare' "
        "AND division_id = %s AND state = 3 FOR UPDATE",
        (instance_id, division_id),
    )
    fast = {"JOB_HEARTBEAT_SECONDS": 1, "JOB_MAINTENANCE_SECONDS": 1}
    first = stack.worker("worker-1", **fast)
    try:
        until(
            lambda: stack.scalar(RUN_FIELD.format("created"), run_id) == 1000,
            60, "the first chunk is committed",
        )  # fmt: skip
        until(
            lambda: stack.scalar(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            ),
            30, "the job waits in its second chunk",
        )  # fmt: skip
        # SIGKILL the worker and its work horse (RQ puts the horse in a session of its own),
        # as when the machine or container under them dies.
        horses = children(first)
        assert horses, "the worker runs its job in a work horse"
        first.signal(signal.SIGKILL)
        for pid in horses:
            os.kill(int(pid), signal.SIGKILL)
        first.proc.wait(timeout=10)
    finally:
        first.stop()
        lock.rollback()
        lock.close()
    assert stack.scalar(RUN_FIELD.format("status"), run_id) == "running"

    with worker(stack, "worker-2", **fast) as second:
        until(
            lambda: stack.scalar(RUN_FIELD.format("status"), run_id) == "done",
            60, "the abandoned job is retried by the next worker",
        )  # fmt: skip
        assert "enqueued for retry" in second.output()
    counted = stack.pg.execute(
        "SELECT count(*), count(DISTINCT regno) FROM preparation_item "
        "WHERE instance_id = %s AND regno <> 'FLT001'",
        (instance_id,),
    )
    assert counted == [(1500, 1500)]  # every vehicle once
    row = stack.pg.execute(
        "SELECT total, created, unchanged, failed, processed FROM import_run WHERE id = %s",
        (run_id,),
    )[0]
    assert row == (1500, 1500, 0, 0, 1500)
    counters = dict(
        stack.pg.execute(
            "SELECT state, count FROM item_state_count WHERE instance_id = %s "
            "AND division_id = %s AND module = 'begcare'",
            (instance_id, division_id),
        )
    )
    assert counters[3] == 500 and counters[2] == 1000 + 1  # and the seeded vehicle
    audits = stack.scalar(
        "SELECT count(*) FROM audit_log WHERE action LIKE %s", f"admin:general/import:{run_id}:%"
    )
    assert audits == 1


# --- (c) the same for a mail job, which the worker runs in its own process ----------------------


class StallingSMTP(SMTPStub):
    """The mail tests' SMTP stub, except that it never greets its first caller: the job that
    delivers a mail waits for the server until its worker is cut off."""

    def handle(self) -> None:
        if not self.server.stalled:
            self.server.stalled.append(time.time())
            self.rfile.read()  # until the caller's process is gone
            return
        self.server.greeted.append(time.time())
        super().handle()


def heartbeat_lapse(stack) -> float:
    """When the heartbeat of the one job that RQ holds as started lapses (its registry score)."""
    from redis import Redis
    from rq.registry import StartedJobRegistry

    from app.core.jobs import QUEUE_NAME

    client = Redis.from_url(stack.redis.url)
    try:
        started = StartedJobRegistry(QUEUE_NAME, connection=client)
        [(_, lapse)] = client.zrange(started.key, 0, -1, withscores=True)
        return lapse
    finally:
        client.close()


def ask_for_a_new_password() -> None:
    from app.auth.services import request_password_reset

    request_password_reset(SELLER, "192.0.2.7", "en_GB")


def test_a_worker_killed_mid_mail_is_retried_once_its_heartbeat_lapses_and_mails_once(
    up, smtp_server
):
    stack = up
    timeout, grace = 3, 3  # seconds: the mail job's heartbeat lapses 6 s after its start
    smtp_server.RequestHandlerClass = StallingSMTP
    smtp_server.stalled, smtp_server.greeted = [], []
    stack.pg.execute("DELETE FROM email_message")
    queue_one_job(stack, ask_for_a_new_password, MAIL_JOB_TIMEOUT_SECONDS=timeout)
    host, port = smtp_server.server_address
    env = {
        "MAIL_URL": f"smtp://{host}:{port}", "MAIL_JOB_GRACE_SECONDS": grace,
        "JOB_HEARTBEAT_SECONDS": 1, "JOB_MAINTENANCE_SECONDS": 1,
    }  # fmt: skip
    first = stack.worker("mail-worker-1", **env)
    try:
        until(lambda: smtp_server.stalled, 60, "the mail job calls the SMTP server")
        assert not children(first), "the worker runs the mail job in its own process"
        first.signal(signal.SIGKILL)  # the worker and the job in it, as when its machine dies
        first.proc.wait(timeout=10)
    finally:
        first.stop()
    called = smtp_server.stalled[0]
    lapse = heartbeat_lapse(stack)
    # The job's one heartbeat, at its start (before it called): its timeout plus the grace.
    assert lapse <= called + timeout + grace
    assert mails(stack) == ["queued"] and not smtp_server.received

    with worker(stack, "mail-worker-2", **env) as second:
        until(lambda: mails(stack) == ["sent"], 30, "the mail is sent by the next worker")
        assert "enqueued for retry" in second.output()  # by its maintenance
    # Queued again once its heartbeat lapsed, not before.
    assert lapse <= smtp_server.greeted[0]
    assert len(smtp_server.greeted) == 1  # and then sent only once
    [envelope] = smtp_server.received  # one mail in the seller's inbox
    sent = message_from_bytes(envelope["data"], policy=policy.default)
    assert sent["To"] == SELLER and "Choose a new password" in sent["Subject"]


# --- (d) the upload area is full -----------------------------------------------------------------


@pytest.fixture
def small_upload_area(up):
    """The table of uploaded files in a tablespace on a 4 MB tmpfs (a real full filesystem)."""
    stack = up
    if os.geteuid() != 0 and not (os.environ.get("CI") or os.environ.get("REQUIRE_BROWSER")):
        pytest.skip("the full-disk gate mounts a tmpfs, which needs root")
    area = stack.pg.base / "uploads"
    area.mkdir(exist_ok=True)
    subprocess.run([MOUNT, "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(area)], check=True)  # noqa: S603
    try:
        stack.pg.owned(area / "pg")
        stack.pg.execute(f"CREATE TABLESPACE uploads LOCATION '{area / 'pg'}'")
        stack.pg.execute("ALTER TABLE file_object SET TABLESPACE uploads")
        yield stack
    finally:
        stack.ensure_up()
        stack.pg.execute("DROP TABLE IF EXISTS filler")
        stack.pg.execute("ALTER TABLE file_object SET TABLESPACE pg_default")
        stack.pg.execute("DROP TABLESPACE IF EXISTS uploads")
        subprocess.run([UMOUNT, str(area)], check=False)  # noqa: S603


def fill(stack) -> None:
    """Write incompressible bytes into the tablespace until the filesystem is full."""
    stack.pg.execute("CREATE TABLE filler (b bytea) TABLESPACE uploads")
    stack.pg.execute("ALTER TABLE filler ALTER COLUMN b SET STORAGE EXTERNAL")
    with pytest.raises(psycopg.errors.DiskFull):
        for _ in range(40):
            stack.pg.execute("INSERT INTO filler SELECT decode(repeat('ab', 262144), 'hex')")


def photo() -> bytes:
    rng = random.Random(5)
    image = Image.frombytes("RGB", (300, 300), bytes(rng.getrandbits(8) for _ in range(270000)))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def upload(port: int, cookie: str, item_id: int, data: bytes):
    status, headers, html = servers.get(port, "/begcare", cookie)
    cookie = headers.get("Set-Cookie", cookie).split(";", 1)[0]  # the session now holds a token
    body, content_type = servers.multipart(
        {"csrf_token": servers.csrf_of(html), "title": "Front"},
        {"file": ("front.png", data, "image/png")},
    )
    return servers.request(
        port, "POST", f"/begcare/items/{item_id}/files", body,
        {"Content-Type": content_type, "Cookie": cookie},
    )  # fmt: skip


COUNTS = (
    "SELECT (SELECT count(*) FROM file_object), (SELECT count(*) FROM item_file), "
    "(SELECT count(*) FROM audit_log)"
)


def test_a_full_upload_area_gives_a_clear_message_and_stores_nothing(small_upload_area, web):
    stack = small_upload_area
    item_id = stack.scalar("SELECT id FROM preparation_item WHERE regno = 'FLT001'")
    data = photo()
    cookie = servers.sign_in(web.port, SELLER)
    fill(stack)
    before = stack.pg.execute(COUNTS)
    status, _, html = upload(web.port, cookie, item_id, data)
    assert status == 422, html[-800:]
    assert "There is no room left to store this. Nothing was saved" in html
    assert 'value="Front"' in html  # the title typed is kept
    assert stack.pg.execute(COUNTS) == before  # nothing half-stored, the database unchanged
    # Once there is room again, the same upload is stored.
    stack.pg.execute("DROP TABLE filler")
    status, headers, _ = upload(web.port, cookie, item_id, data)
    assert status == 302, headers
    assert stack.scalar("SELECT count(*) FROM file_object") == before[0][0] + 1
