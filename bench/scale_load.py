"""Issue 34: the mixed load of bench/locustfile.py against the production set-up, headless.

gunicorn with the project's gunicorn.conf.py (2 sync workers per core, access log on), an RQ
worker (`flask worker`), PostgreSQL (a database filled by bench/scale_data.py) and Redis (a
database number of its own); 300 staff and 50 bidders from Locust for --minutes. Writes the
throughput, p50/p95 per journey step, the errors and each gunicorn worker's RSS at the end into
bench/SCALE.md (between <!-- locust --> markers).

    .venv/bin/python bench/scale_load.py --database h_scale_100k --minutes 10
"""

import argparse
import csv
import os
import platform
import signal
import subprocess
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from common import ROOT, write_block

SERVER = "postgresql://dealercare:dealercare@127.0.0.1:5432"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def wait_for(port: int, seconds: float = 300) -> None:
    import http.client

    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/login")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"gunicorn did not answer on {port}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default="h_scale_100k")
    parser.add_argument("--vehicles", type=int, default=100_000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--port", type=int, default=5936)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--staff", type=int, default=300)
    parser.add_argument("--bidders", type=int, default=50)
    parser.add_argument("--locust", default=str(ROOT / ".venv" / "bin" / "locust"))
    parser.add_argument("--out", default=str(ROOT / "instance" / "locust"))
    parser.add_argument(
        "--spawn-rate", type=float, default=3.0,
        help="users started per second: 350 arrive over two minutes, as a morning's sign-ins",
    )  # fmt: skip
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    url = f"{SERVER}/{args.database}"
    env = {
        **os.environ, "DATABASE_URL": url.replace("postgresql://", "postgresql+psycopg://"),
        "REDIS_URL": args.redis, "PORT": str(args.port), "TRUSTED_PROXIES": "1",
        "SCALE_DATABASE_URL": url, "SCALE_VEHICLES": str(args.vehicles),
        "SCALE_CLOSE_MINUTES": str(max(1.0, args.minutes / 2.5)),
    }  # fmt: skip
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    log = open(f"{args.out}_server.log", "w")  # noqa: SIM115 - open for the run
    server = subprocess.Popen(  # noqa: S603
        [str(ROOT / ".venv/bin/gunicorn"), "--config", "gunicorn.conf.py", "wsgi:app"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    worker = subprocess.Popen(  # noqa: S603
        [str(ROOT / ".venv/bin/flask"), "--app", "wsgi", "worker"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    samples: list[tuple[float, float, list[float]]] = []
    done = threading.Event()

    def sample() -> None:
        """Each minute of the run: (minute, load average, the workers' RSS in MB)."""
        while not done.wait(60):
            rss = sorted(rss_mb(pid) for pid in children(server.pid))
            samples.append(((time.time() - started) / 60, os.getloadavg()[0], rss))

    try:
        wait_for(args.port)
        users = args.staff + args.bidders
        started = time.time()
        threading.Thread(target=sample, daemon=True).start()
        subprocess.run(  # noqa: S603
            [args.locust, "-f", str(ROOT / "bench" / "locustfile.py"), "--headless",
             "--host", f"http://127.0.0.1:{args.port}", "--users", str(users),
             "--spawn-rate", f"{args.spawn_rate:g}", "--run-time", f"{int(args.minutes * 60)}s",
             "--csv", args.out, "--only-summary", "--stop-timeout", "10"],
            cwd=ROOT, env=env, check=False,
        )  # fmt: skip
        elapsed = time.time() - started
        done.set()
        workers = {pid: rss_mb(pid) for pid in children(server.pid)}
        master = rss_mb(server.pid)
    finally:
        for proc in (worker, server):
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        log.close()
    with open(f"{args.out}_stats.csv") as f:
        rows = list(csv.DictReader(f))
    errors_seen = []
    if Path(f"{args.out}_failures.csv").exists():
        with open(f"{args.out}_failures.csv") as f:
            errors_seen = list(csv.DictReader(f))
    for row in rows:
        print(f"{row['Name']:16s} {row['Request Count']:>7s} req {row['Failure Count']:>5s} failed"
              f"  p50 {row['50%']:>6s}  p95 {row['95%']:>6s} ms  {row['Requests/s']:>7s}/s")  # fmt: skip
    for error in errors_seen:
        print("failure:", error)
    print("gunicorn worker RSS MB:", {pid: round(mb) for pid, mb in workers.items()})
    if not args.no_write:
        write(args, rows, errors_seen, workers, master, elapsed, samples)


def write(args, rows, errors_seen, workers, master, elapsed, samples) -> None:
    lines = ["| step | requests | failures | p50 ms | p95 ms | p99 ms | requests/s |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for row in rows:
        lines.append(
            f"| {row['Name']} | {int(row['Request Count']):,} | {row['Failure Count']} | "
            f"{row['50%']} | {row['95%']} | {row['99%']} | {float(row['Requests/s']):.1f} |"
        )
    failures = "\n".join(
        f"- {e['Method']} {e['Name']}: {e['Error']} ({e['Occurrences']}×)" for e in errors_seen
    )
    rss = ", ".join(f"{mb:.0f}" for mb in sorted(workers.values()))
    command = (f".venv/bin/python bench/scale_load.py --database {args.database} "
               f"--vehicles {args.vehicles} --minutes {args.minutes:g} "
               f"--spawn-rate {args.spawn_rate:g}")  # fmt: skip
    marker = "<!-- locust -->"
    block = (
        f"{marker}\nMeasured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end): {args.staff} staff + {args.bidders} "
        f"bidders for {elapsed / 60:.1f} minutes against {len(workers)} gunicorn sync workers "
        f"(gunicorn.conf.py), one RQ worker, PostgreSQL ({args.database}) and Redis.\n\n"
        f"    {command}\n\n" + "\n".join(lines)
        + f"\n\nFailures: {failures or 'none'}.\n\n"
        f"RSS of each gunicorn worker at the end: {rss} MB"
        + (f" (the master {master:.0f} MB).\n" if master else ".\n")
        + "\n| minute | load average (1 min) | RSS of each worker, MB |\n|---|---|---|\n"
        + "".join(
            f"| {minute:.0f} | {load:.1f} | {', '.join(f'{mb:.0f}' for mb in rss)} |\n"
            for minute, load, rss in samples[:: max(1, len(samples) // 12)]
        )
        + marker
    )  # fmt: skip
    path = ROOT / "bench" / "SCALE.md"
    write_block(path, marker, block)


if __name__ == "__main__":
    main()
