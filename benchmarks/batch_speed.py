"""How fast `tilefit batch` diagnoses a whole model, locally and on Dask.

Run with ``.venv/bin/python benchmarks/batch_speed.py`` (``--help`` for the
knobs). It writes a synthetic model of 1,472 tiles of about 500 requests each
(``tilefit.generate.synth``; the same seed gives the same bytes) as a ``.jsonl`` bundle
in a temporary folder, then diagnoses every tile with strategies only
(``diagnose(search=False)``, ``--no-search``) three times, each into a fresh
results database, timing the whole run (worker start-up, reading, parsing,
diagnosing and recording every row):

1. local workers, ``--jobs 1``;
2. local workers, ``--jobs 2`` (scaling efficiency: the rate with two workers
   over twice the rate with one);
3. a Dask cluster of two worker processes with one thread each, started on
   127.0.0.1 for the occasion (``dask scheduler`` and ``dask worker``);
   ``--dask-chunk N`` fixes the captures per task (``1`` is how the runner
   worked before it chunked).

The target: the whole model in under two minutes on a 2-core machine, and a
scaling efficiency of at least 80%. Other processes on the machine share the
cores, so the load average is printed alongside, and the CPU seconds spent:
this process and its workers, plus for Dask the scheduler, the nanny and the
worker processes (split by role below the table). When they
stay flat from one run to the next while the wall time does not halve, the
cores were busy elsewhere.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from psutil import Process  # a dependency of distributed

from tilefit.batch.bundle import write_bundle
from tilefit.batch.inputs import Source, expand
from tilefit.batch.run import Runner, prepare, run_batch
from tilefit.batch.runner import LocalRunner
from tilefit.batch.store import Store
from tilefit.batch.work import Settings
from tilefit.generate.synth import TILES_PER_IPU, Recipe, synth_model

TARGET_SECONDS = 120.0
SETTINGS = Settings(mode="diagnose", search=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiles", type=int, default=TILES_PER_IPU)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask cluster")
    parser.add_argument(
        "--dask-chunk", type=int, default=None, help="captures per Dask task (default: sized)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tilefit-bench-") as tmp:
        folder = Path(tmp)
        bundle = folder / "model.jsonl"
        started = time.perf_counter()
        base = replace(Recipe(), requests=args.requests)
        write_bundle(synth_model(args.tiles, args.seed, base=base), bundle)
        made = time.perf_counter() - started
        print(
            f"model: {args.tiles} tiles of about {args.requests} requests, seed {args.seed}, "
            f"{bundle.stat().st_size / 1e6:.1f} MB bundle, written in {made:.1f} s"
        )
        print(f"load average before: {_load()}")
        sources = expand([str(bundle)])

        results: list[tuple[str, float, dict[str, float]]] = []
        for workers in (1, 2):
            results.append((f"local, {workers} worker{'s' if workers > 1 else ''}",
                            *_timed(sources, folder / f"local{workers}.sqlite",
                                    LocalRunner(workers))))  # fmt: skip
        if not args.no_dask:
            with _cluster() as (address, cluster):
                from tilefit.batch.dask_runner import DaskRunner

                runner = DaskRunner(address, chunk=args.dask_chunk)
                timed = _timed(sources, folder / "dask.sqlite", runner, cluster)
                results.append(("dask, 2 workers x 1 thread", *timed))

        print(f"load average after: {_load()}")
        print()
        print(f"{'runner':<28}{'seconds':>9}{'tiles/s':>9}{'efficiency':>12}{'CPU s':>8}")
        single = args.tiles / results[0][1]
        for name, seconds, cpu in results:
            rate = args.tiles / seconds
            workers = 1 if "1 worker" in name else 2
            efficiency = rate / (workers * single)
            total = sum(cpu.values())
            print(f"{name:<28}{seconds:>9.1f}{rate:>9.1f}{efficiency:>12.0%}{total:>8.1f}")
        for name, _, cpu in results:
            if len(cpu) > 1:
                print(
                    f"{name.split(',')[0]} CPU s: "
                    + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
                )
        best = min(seconds for name, seconds, _ in results if "local, 2" in name)
        verdict = "met" if best < TARGET_SECONDS else "NOT met"
        print(f"\ntarget {TARGET_SECONDS:.0f} s with 2 local workers: {verdict} ({best:.1f} s)")
        with Store.open(folder / "local2.sqlite", create=False) as store:
            print("verdicts:", ", ".join(f"{v} {n}" for v, n in store.verdicts()),
                  f"errors {store.error_count()}")  # fmt: skip
    return 0


def _timed(
    sources: list[Source], db: Path, runner: Runner, cluster: Mapping[str, Process] | None = None
) -> tuple[float, dict[str, float]]:
    """Wall seconds of the run, and CPU seconds by part.

    The parts: this process (and its finished children, the local workers),
    then the cluster's scheduler, nannies and workers.
    """
    with Store.open(db) as store:
        prepare(store, SETTINGS, resume=False, overwrite=True)
        before = os.times()
        elsewhere = _cpu(cluster or {})
        started = time.perf_counter()
        counts = run_batch(sources, store, SETTINGS, runner)
        seconds = time.perf_counter() - started
        after = os.times()
        spent = {role: cpu - elsewhere[role] for role, cpu in _cpu(cluster or {}).items()}
        assert counts.recorded == len(sources) == store.count()
    here = sum(after[k] - before[k] for k in range(4))
    return seconds, {"client" if cluster else "here": here, **spent}


def _cpu(cluster: Mapping[str, Process]) -> dict[str, float]:
    """CPU seconds so far of each of the cluster's processes, and of all their children."""
    spent = {role: _seconds(process) for role, process in cluster.items()}
    children = [c for process in cluster.values() for c in process.children(recursive=True)]
    return {**spent, "workers": sum(_seconds(c) for c in children)} if cluster else {}


def _seconds(process: Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


@contextmanager
def _cluster() -> Iterator[tuple[str, dict[str, Process]]]:
    """A scheduler and two one-thread workers on 127.0.0.1: its address and its processes."""
    import distributed

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    dask = [sys.executable, "-m", "dask"]
    scheduler = subprocess.Popen(
        [*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **quiet
    )
    worker = subprocess.Popen(
        [*dask, "worker", address, "--nworkers", "2", "--nthreads", "1", "--host", "127.0.0.1",
         "--no-dashboard"], **quiet,
    )  # fmt: skip
    try:
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            yield address, {"scheduler": Process(scheduler.pid), "nannies": Process(worker.pid)}
            client.shutdown()
    finally:
        for process in (worker, scheduler):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
