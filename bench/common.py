"""Shared pieces of the benchmarks: a database with 100,000 vehicles, a server, a load loop."""

import http.client
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def bench_database_url() -> str:
    """BENCH_DATABASE_URL, else a SQLite file under instance/."""
    return os.environ.get("BENCH_DATABASE_URL") or f"sqlite:///{ROOT / 'instance' / 'bench.db'}"


def prepare_database(url: str, items: int = 100_000) -> None:
    """Migrate, load the demo data, and top the first instance up to `items` vehicles."""
    os.environ["DATABASE_URL"] = url
    from flask_migrate import upgrade
    from sqlalchemy import func, insert, select

    from app import create_app
    from app.core.models import Division, Instance
    from app.demo import load_demo_data
    from app.extensions import db
    from app.preparation.models import PreparationItem
    from app.preparation.services import recount

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade()
        load_demo_data()
        instance = db.session.scalars(select(Instance).order_by(Instance.id)).first()
        have = db.session.scalar(
            select(func.count())
            .select_from(PreparationItem)
            .where(PreparationItem.instance_id == instance.id)
        )
        divisions = db.session.scalars(
            select(Division.id)
            .where(Division.instance_id == instance.id)
            .execution_options(all_instances=True)
        ).all()
        rng = random.Random(7)
        batch = []
        for n in range(have, items):
            batch.append(
                {
                    "instance_id": instance.id, "module": "begcare" if n % 2 else "newcare",
                    "division_id": rng.choice(divisions), "state": rng.randint(1, 9),
                    "regno": f"BEN{n:06d}", "vin": f"VIN{n:014d}", "brand": rng.choice(["Volvo", "Kia", "Audi"]),
                    "model": rng.choice(["V60", "Niro", "A4"]), "warning": n % 17 == 0,
                }
            )  # fmt: skip
            if len(batch) == 5000:
                db.session.execute(insert(PreparationItem), batch)
                batch.clear()
        if batch:
            db.session.execute(insert(PreparationItem), batch)
        recount(instance.id)
        db.session.commit()
        if db.engine.dialect.name == "postgresql":
            # The planner's statistics, as autovacuum keeps them on a database in use: freshly
            # loaded tables have none, and then PostgreSQL plans the item tables' statement
            # for one row instead of 320 (measured: 2.6 ms to execute instead of 0.7 ms).
            with db.engine.connect() as connection:
                for table in db.metadata.sorted_tables:
                    connection.exec_driver_sql(f'ANALYZE "{table.name}"')
                connection.commit()
        total = db.session.scalar(
            select(func.count())
            .select_from(PreparationItem)
            .where(PreparationItem.instance_id == instance.id)
        )
        print(f"database ready: {total} vehicles in the first instance ({url.split('@')[-1]})")


@contextmanager
def gunicorn(
    app_spec: str,
    port: int,
    env: dict,
    workers: int = 4,
    root: Path = ROOT,
    worker_class: str = "sync",
    threads: int = 1,
):
    """Serve `app_spec` with gunicorn on 127.0.0.1:port for the duration of the block (the
    code of `root`: another checkout serves an older version beside this one)."""
    cmd = [
        str(ROOT / ".venv/bin/gunicorn"), "--config", str(ROOT / "bench" / "gunicorn_bench.py"), "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
        "--worker-class", worker_class, "--threads", str(threads), "--log-level", "warning",
        app_spec,
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=root, env={**os.environ, **env})  # noqa: S603
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                conn.request("GET", "/login")
                conn.getresponse().read()
                break
            except OSError:
                time.sleep(0.2)
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)


def worker_cpu_seconds(master_pid: int) -> float:
    """User + system CPU seconds used so far by the gunicorn workers of `master_pid` (Linux)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    for pid in children:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def postgres_cpu_seconds() -> float:
    """User + system CPU seconds used so far by every PostgreSQL process on this machine."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() != "postgres":
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(v) for v in fields[11:15])  # utime, stime (+ ended children)
    return total / os.sysconf("SC_CLK_TCK")


def sign_in(port: int, email: str, password: str = "demo-pass-1") -> str:
    """Sign in through the login form; return the session cookie header value."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)  # a busy machine
    conn.request("GET", "/login")
    resp = conn.getresponse()
    html = resp.read().decode()
    cookie = resp.getheader("Set-Cookie").split(";", 1)[0]
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
    body = urlencode({"email": email, "password": password, "csrf_token": token})
    conn.request(
        "POST", "/login", body,
        {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie},
    )  # fmt: skip
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 302, f"sign-in failed: {resp.status}"
    return resp.getheader("Set-Cookie").split(";", 1)[0]


def load(
    port: int,
    path: str,
    *,
    cookie: str | None = None,
    clients: int = 8,
    seconds: float = 10.0,
    max_requests: int = 20_000,
) -> dict:
    """Send GET requests from `clients` keep-alive connections for `seconds` (bounded)."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds
    headers = {"Cookie": cookie} if cookie else {}

    def worker() -> None:
        nonlocal errors
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        own = dict(headers)  # each client keeps the cookie the server sets, as a browser does
        while time.perf_counter() < stop_at:
            with lock:
                if len(latencies) + errors >= max_requests:
                    return
            start = time.perf_counter()
            try:
                conn.request("GET", path, headers=own)
                resp = conn.getresponse()
                resp.read()
                if cookie := resp.getheader("Set-Cookie"):
                    own["Cookie"] = cookie.split(";", 1)[0]
                ok = resp.status == 200
            except OSError:
                ok = False
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            with lock:
                if ok:
                    latencies.append(time.perf_counter() - start)
                else:
                    errors += 1

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": len(latencies),
        "errors": errors,
        "rps": len(latencies) / elapsed,
        "median_ms": statistics.median(latencies) * 1000 if latencies else None,
        "p95_ms": latencies[int(len(latencies) * 0.95) - 1] * 1000 if latencies else None,
        "latencies": latencies,
    }


def report(name: str, result: dict) -> None:
    print(
        f"{name:28s} {result['rps']:8.1f} req/s   median {result['median_ms']:7.2f} ms   "
        f"p95 {result['p95_ms']:7.2f} ms   ({result['requests']} ok, {result['errors']} errors)"
    )


def signed_in_client(app, email: str = "seller@demo.test", password: str = "demo-pass-1"):
    """A Flask test client of `app` signed in through the sign-in form (a real session)."""
    client = app.test_client()
    html = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
    form = {"email": email, "password": password, "csrf_token": token}
    assert client.post("/login", data=form).status_code == 302, f"{email} could not sign in"
    return client


def summary(latencies: list[float], errors: int) -> dict:
    """Requests, errors, p50 and p95 (nearest rank) in ms of sorted latencies in seconds."""
    return {
        "requests": len(latencies),
        "errors": errors,
        "median_ms": statistics.median(latencies) * 1000 if latencies else None,
        "p95_ms": latencies[math.ceil(len(latencies) * 0.95) - 1] * 1000 if latencies else None,
    }


def write_block(path: Path, marker: str, block: str, heading: str | None = None) -> None:
    """Put `block` (a measurement that starts and ends with the line `marker`) in the file in
    place of the block with the same marker, or at its end (under `## heading` when given): each
    bench rewrites only its own part of a shared results file (bench/SCALE.md)."""
    text = path.read_text() if path.exists() else ""
    if marker in text:
        head, _, rest = text.partition(marker)
        text = head + block + rest.partition(marker)[2]
    elif heading:
        text = text.rstrip("\n") + f"\n\n## {heading}\n\n" + block + "\n"
    else:
        text = text + "\n" + block + "\n"
    path.write_text(text)
