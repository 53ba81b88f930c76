"""The job worker's memory across a whole-network rules job (issue 35).

    .venv/bin/python -m bench.bench_worker [--parcels 160000] [--json bench/results/worker_160k.json]

Starts ``flask --app server jobs worker`` on the PostGIS bench city (``lateral_bench_<n>k``,
seeded once) with a queue file of its own, submits one rules run as ``POST
/api/v1/rules/run`` does, and samples every 0.2 s the resident memory (``/proc``) of the
worker and of its children until the job is done. Each job runs in a child that exits with
it (docs/deploy.md, "The job queue"), so the worker should end the size it started.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

from bench.common import BIN, OUT, ROOT, database_url, ensure_city, finish


def rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0) / 1024  # 0: a zombie
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def submit(env: dict) -> int:
    code = ("from server import create_app\nfrom server.core.queue import service\n"
            "app = create_app()\nwith app.test_request_context():\n"
            "    print(service.submit('rules_run', {'rules': None, 'user_id': None}).id)\n")
    done = subprocess.run([str(BIN / "python"), "-c", code], env=env, cwd=ROOT, check=True,
                          capture_output=True, text=True)
    return int(done.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parcels", type=int, default=160_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    url = database_url("postgis", args.parcels)
    ensure_city(url, args.parcels)
    OUT.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.begin() as conn:  # a job an earlier run left would be queued again at the worker's start
        conn.execute(sa.text("UPDATE jobs SET state = 'failed', error = 'left by an earlier bench run' "
                             "WHERE state = 'queued'"))
    results: dict = {"parcels": args.parcels, "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
                     "loadavg_at_start": [round(v, 2) for v in os.getloadavg()]}
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT),
               "LATERAL_QUEUE_URI": f"sqlite:///{Path(tmp) / 'queue.sqlite3'}"}
        with open(Path(tmp) / "worker.log", "w") as log:
            worker = subprocess.Popen([str(BIN / "flask"), "--app", "server", "jobs", "worker"], env=env, cwd=ROOT,
                                      stdout=log, stderr=log, start_new_session=True)
        try:
            while len(children(worker.pid)) < 2:
                time.sleep(0.2)
            time.sleep(2)
            start_rss = rss_mib(worker.pid)
            job_id = submit(env)
            peak_parent, peak_child, clock = start_rss, 0.0, time.perf_counter()
            while True:
                peak_parent = max(peak_parent, rss_mib(worker.pid))
                peak_child = max([peak_child, *(rss_mib(c) for c in children(worker.pid))])
                with engine.connect() as conn:
                    state = conn.execute(sa.text("SELECT state FROM jobs WHERE id = :i"), {"i": job_id}).scalar()
                if state != "queued":
                    break
                time.sleep(0.2)
            seconds = time.perf_counter() - clock
            time.sleep(3)  # the child that ran it exits; the next is forked
            results.update({"job_state": state, "job_seconds": round(seconds, 1),
                            "worker_rss_mib_before": round(start_rss, 1),
                            "worker_rss_mib_peak": round(peak_parent, 1),
                            "worker_rss_mib_after": round(rss_mib(worker.pid), 1),
                            "job_child_rss_mib_peak": round(peak_child, 1)})
            engine.dispose()
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(30)
    finish(results, report, args.json)
    return 0


def report(r: dict) -> None:
    print(f"\nJob worker, one rules job at {r['parcels']:,} parcels ({r['started_utc']} UTC, load "
          f"{r['loadavg_at_start'][0]} → {r['loadavg_at_end'][0]}): job {r['job_state']} in {r['job_seconds']} s; "
          f"worker RSS {r['worker_rss_mib_before']} → {r['worker_rss_mib_after']} MiB (peak "
          f"{r['worker_rss_mib_peak']}); the job's child peaked at {r['job_child_rss_mib_peak']} MiB")


if __name__ == "__main__":
    raise SystemExit(main())
