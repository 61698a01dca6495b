"""Scale-out: N gunicorn nodes and M RQ workers on loopback behind ONE address, against one
PostgreSQL and one Redis (private ones, started here), then the cross-node checks and a load run
comparing one node with all nodes side by side.

    .venv/bin/python bench/scale_out.py [--nodes 2] [--workers 1] [--web 1] [--seconds 5] [--rounds 3]
    make scale-out

One address: every node's gunicorn master binds the shared port with SO_REUSEPORT
(`--reuse-port`), so the kernel spreads new connections over the nodes, with no proxy to run or
to fail; each node also binds a port of its own, for the checks that must reach one node. On
more machines the shared port becomes a load balancer (README, "Scale-out").

The load run alternates, in rounds of `--seconds`, between node 1's own port (one node) and the
shared port (every node), with the same client (wrk when installed, else Python threads), and
reports the medians and their ratio. Two cores shared with the load generator and with anything
else running bound what a second node can add: the ratio is reported as measured.
"""

import argparse
import atexit
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import load  # noqa: E402
from tests import processes  # noqa: E402
from tests.faults import scale, servers  # noqa: E402

MAX_NODES = 6
SECRET = "scale-out-shared-secret"


def wrk(port: int, path: str, cookie: str | None, seconds: float, clients: int) -> float:
    cmd = ["wrk", "-t", "1", "-c", str(clients), "-d", f"{seconds:g}s", "--timeout", "10s"]
    if cookie:
        cmd += ["-H", f"Cookie: {cookie}"]
    out = subprocess.run(  # noqa: S603
        [*cmd, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True
    ).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    assert not errors, f"wrk saw errors:\n{out}"
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def rate(port: int, path: str, cookie: str | None, seconds: float, clients: int) -> float:
    if shutil.which("wrk"):
        return wrk(port, path, cookie, seconds, clients)
    result = load(port, path, cookie=cookie, clients=clients, seconds=seconds)
    assert result["errors"] == 0, result
    return result["rps"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=2, help="gunicorn nodes (at most 6)")
    parser.add_argument("--workers", type=int, default=1, help="RQ workers")
    parser.add_argument("--web", type=int, default=1, help="web processes per node")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of one load round")
    parser.add_argument("--rounds", type=int, default=3, help="pairs of rounds (1 node, all)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent connections")
    args = parser.parse_args()
    if why := servers.missing():
        print(f"scale-out: {why}")
        return 1
    assert 1 <= args.nodes <= MAX_NODES
    # Servers on free ports, stopped however this ends (SIGTERM too); a killed run's are
    # stopped by the next run or test session (tests/processes.py).
    processes.clean_leftovers()
    processes.stop_on_signals()
    atexit.register(processes.stop_all)  # also when the tidy stop below fails half-way
    shared_port = processes.free_port()
    own_ports = [processes.free_port() for _ in range(args.nodes)]
    logs = Path(tempfile.mkdtemp(prefix="dc-scale-out-"))
    redis, pg = servers.PrivateRedis(logs), servers.PrivatePostgres()
    launched: list[servers.Process] = []
    try:
        redis.start()
        pg.start()
        servers.seed(pg.url, SECRET)
        # One shared truth: the database, Redis, the SECRET_KEY; uploads live in the database.
        env = servers.app_env(pg.url, redis.url, SECRET, PUBLIC_RATE_LIMIT="20/3600")
        names = [f"node-{n + 1}" for n in range(args.nodes)]
        started = time.monotonic()
        for name, port in zip(names, own_ports, strict=False):
            launched.append(
                servers.gunicorn_node(
                    name, [port, shared_port], env, logs, workers=args.web, reuse_port=True
                )
            )
        for n in range(args.workers):
            launched.append(servers.rq_worker(f"worker-{n + 1}", env, logs))
        print(
            f"{args.nodes} nodes x {args.web} web process(es) on 127.0.0.1:{shared_port} "
            f"(own ports {', '.join(map(str, own_ports[: args.nodes]))}), {args.workers} RQ "
            f"worker(s); PostgreSQL :{pg.port}, Redis :{redis.port}; up in "
            f"{time.monotonic() - started:.1f} s; logs in {logs}"
        )

        cluster = scale.Cluster(dict(zip(names, own_ports, strict=False)), shared_port)
        print("\ncross-node checks")
        if args.nodes > 1:
            seen = scale.check_one_address_reaches_every_node(cluster, 40)
            print(f"  one address, answers per node (40 new connections): {seen}")
        scale.check_sessions_hold_across_nodes(cluster)
        print("  signed in on one node, the session works on every node; signed out: on none")
        scale.check_rate_limit_is_shared(cluster, 20)
        print("  public rate limit 20/hour: the 21st request is refused whichever node gets it")
        item_id = pg.execute("SELECT id FROM preparation_item WHERE regno = 'FLT001'")[0][0]
        scale.check_files_and_caches_hold_across_nodes(cluster, item_id, scale.PDF)
        print("  a file uploaded on one node is served by every node; a language change shows")
        if args.workers:

            def mails():
                return pg.execute(
                    "SELECT count(*) FILTER (WHERE status = 'stored'), "
                    "count(*) FILTER (WHERE status = 'queued') FROM email_message"
                )[0]

            scale.check_jobs_run_once_from_any_node(cluster, mails)
            print("  a mail job queued on each node is delivered once by the shared workers")

        print(
            f"\nload: {args.rounds} x ({args.seconds:g} s on node-1 alone, "
            f"{args.seconds:g} s on the shared address), {args.clients} connections, "
            f"{'wrk' if shutil.which('wrk') else 'Python threads'}; {os.cpu_count()} cores"
        )
        cookie = servers.sign_in(own_ports[0], servers.SELLER)
        for label, path, jar in (("/login (public)", "/login", None),
                                 ("/begcare (signed in)", "/begcare", cookie)):  # fmt: skip
            one, every = [], []
            for _ in range(args.rounds):
                one.append(rate(own_ports[0], path, jar, args.seconds, args.clients))
                every.append(rate(shared_port, path, jar, args.seconds, args.clients))
            a, b = statistics.median(one), statistics.median(every)
            print(
                f"  {label:22s} 1 node {a:7.1f} req/s   {args.nodes} nodes {b:7.1f} req/s   "
                f"ratio {b / a:4.2f}   (rounds: {[round(x) for x in one]} vs "
                f"{[round(x) for x in every]})"
            )
        return 0
    finally:
        servers.Process.stop_all(launched)
        redis.stop()
        pg.destroy()
        processes.stop_all()


if __name__ == "__main__":
    sys.exit(main())
