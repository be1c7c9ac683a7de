"""bench/s3: the same build on local disk and on S3 (SeaweedFS), side by side.

Usage: .venv/bin/python bench/s3.py [--corpus DIR ... | --docs 100000]
       (after `bash scripts/services.sh`)

Each side gets a fresh lakehouse (SQLite catalog under a temporary LAKEMIX_HOME): the local
side keeps its warehouse there, the S3 side in a fresh prefix of the SeaweedFS test bucket
(`LAKEMIX_TEST_S3_*` from `.services.env`). Both run, one after the other: `lakemix ingest` of
each corpus (default: every folder of ../shared/corpora/web; with `--docs N` the N-document
corpus of bench/corpus.py, seed 0, as bench/engines builds), `dbt build`, `lakemix mix build
demo_unimax`, `lakemix release`, then one loader epoch over the release. Printed per stage:
wall time and CPU seconds (user + system of the commands, `getrusage` of the children) on each
side, and on the S3 side the CPU seconds of the SeaweedFS server (`weed`); then the bytes the
warehouse holds, and for S3 the requests the server
answered and the bytes it received and sent (SeaweedFS's Prometheus counters
`SeaweedFS_s3_request_total` and `SeaweedFS_s3_bucket_traffic_*_bytes_total` of the test
bucket, read before and after each stage from `LAKEMIX_TEST_S3_METRICS`). On the local side the
bytes written are the processes' block writes (`getrusage` of the children; reads are served
from the page cache and not counted).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))
# The accuracy objective (severity error) needs reviewers; the bench corpus has none.
UNREVIEWED = ("--accept-unvalidated", "bench corpus: no reviewers")
STAGES = ("ingest", "dbt build", "mix build", "release", "loader epoch")
LOADER = (
    "from lakemix.loader import MixLoader\n"
    "n = sum(int(b['cu_seqlens'][-1]) for b in MixLoader(mix='demo_unimax', tag='bench',"
    " seq_len=512, batch_size=8, seed=1))\n"
    "print(n)\n"
)


def services() -> dict[str, str]:
    """The LAKEMIX_TEST_S3_* variables: from the environment, else from .services.env."""
    found = {k: v for k, v in os.environ.items() if k.startswith("LAKEMIX_TEST_S3_")}
    env_file = ROOT / ".services.env"
    if "LAKEMIX_TEST_S3_ENDPOINT" not in found and env_file.is_file():
        for line in env_file.read_text().splitlines():
            name, _, value = line.removeprefix("export ").partition("=")
            if name.startswith("LAKEMIX_TEST_S3_"):
                found[name] = value.strip("'")
    if "LAKEMIX_TEST_S3_ENDPOINT" not in found:
        sys.exit("bench/s3: no LAKEMIX_TEST_S3_ENDPOINT; run `bash scripts/services.sh` first")
    return found


def counters(url: str, bucket: str) -> dict[str, float]:
    """requests by type, and bytes received and sent, of ``bucket`` on the S3 server."""
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    out: dict[str, float] = {"requests": 0.0, "received": 0.0, "sent": 0.0}
    for line in text.splitlines():
        if line.startswith("#") or f'bucket="{bucket}"' not in line:
            continue
        value = float(line.rsplit(" ", 1)[1])
        if line.startswith("SeaweedFS_s3_request_total"):
            out["requests"] += value
            kind = re.search(r'type="([^"]+)"', line)
            if kind:
                out[f"requests {kind.group(1)}"] = out.get(f"requests {kind.group(1)}", 0) + value
        elif line.startswith("SeaweedFS_s3_bucket_traffic_received_bytes_total"):
            out["received"] += value
        elif line.startswith("SeaweedFS_s3_bucket_traffic_sent_bytes_total"):
            out["sent"] += value
    return out


def ingest_commands(corpora: list[Path], lakemix: str) -> list[tuple[str, list[str]]]:
    """One ``lakemix ingest`` per corpus folder; a bench/corpus.py corpus as one source."""
    steps = []
    for corpus in corpora:
        shards = sorted(corpus.glob("part-*.jsonl.zst"))
        if (corpus / "ground_truth.parquet").is_file() and shards:
            files = [str(s) for s in shards]
            steps.append(
                ("ingest", [lakemix, "ingest", *files, "--source", "bench", "--format", "jsonl"])
            )
        else:
            steps.append(("ingest", [lakemix, "ingest", str(corpus), "--source", corpus.name]))
    return steps


def commands(corpora: list[Path]) -> list[tuple[str, list[str]]]:
    dbt = [str(BIN / "dbt"), "build", "--project-dir", str(ROOT), "--profiles-dir", str(ROOT)]
    lakemix = str(BIN / "lakemix")
    steps = ingest_commands(corpora, lakemix)
    return [
        *steps,
        ("dbt build", dbt),
        ("mix build", [lakemix, "mix", "build", "demo_unimax"]),
        ("release", [lakemix, "release", "demo_unimax", "--tag", "bench", *UNREVIEWED]),
        ("loader epoch", [sys.executable, "-c", LOADER]),
    ]


def children_cpu() -> float:
    """User + system seconds of this process's finished children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def server_cpu() -> float:
    """User + system seconds of the S3 server's processes (SeaweedFS's ``weed``) so far."""
    total = 0.0
    for process in psutil.process_iter(["name", "cpu_times"]):
        if process.info["name"] == "weed" and process.info["cpu_times"] is not None:
            total += process.info["cpu_times"].user + process.info["cpu_times"].system
    return total


def run_side(env: dict[str, str], corpora: list[Path], metrics: str | None, bucket: str) -> dict:
    times: dict[str, float] = dict.fromkeys(STAGES, 0.0)
    cpu: dict[str, float] = dict.fromkeys(STAGES, 0.0)
    server: dict[str, float] = dict.fromkeys(STAGES, 0.0)
    traffic: dict[str, dict[str, float]] = {}
    blocks_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_oublock
    for stage, cmd in commands(corpora):
        before = counters(metrics, bucket) if metrics else {}
        cpu_before, server_before = children_cpu(), server_cpu()
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"bench/s3: {stage} failed\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        times[stage] += time.perf_counter() - start
        cpu[stage] += children_cpu() - cpu_before
        if metrics:
            server[stage] += server_cpu() - server_before
        if metrics:
            after = counters(metrics, bucket)
            spent = traffic.setdefault(stage, {})
            for key, value in after.items():
                spent[key] = spent.get(key, 0) + value - before.get(key, 0)
    written = (resource.getrusage(resource.RUSAGE_CHILDREN).ru_oublock - blocks_before) * 512
    return {"times": times, "cpu": cpu, "server": server, "traffic": traffic, "written": written}


def warehouse_bytes(env: dict[str, str]) -> int:
    """Bytes of every file under the warehouse (a folder or an S3 prefix)."""
    import pyarrow.fs as pafs

    from lakemix.settings import Settings
    from lakemix.storage import filesystem

    settings = Settings.from_env(env)
    fs, root = filesystem(settings.s3, settings.warehouse)
    infos = fs.get_file_info(pafs.FileSelector(root, recursive=True, allow_not_found=True))
    return sum(i.size or 0 for i in infos if i.type == pafs.FileType.File)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, action="append", help="corpus folder (repeat)")
    parser.add_argument(
        "--docs", type=int, help="the bench/corpus.py corpus of this many documents"
    )
    args = parser.parse_args()
    if args.docs:
        from corpus import cached_corpus

        corpora = [cached_corpus(args.docs, 0)]
    else:
        corpora = args.corpus or sorted(p for p in (CORPORA / "web").iterdir() if p.is_dir())
    start_load = os.getloadavg()
    s3 = services()
    metrics = s3.get("LAKEMIX_TEST_S3_METRICS")
    bucket = s3["LAKEMIX_TEST_S3_BUCKET"]
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LAKEMIX_", "AWS_"))}
    base["DO_NOT_TRACK"] = "1"
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-s3-") as tmp:
        for side in ("local", "s3"):
            home = Path(tmp) / side
            env = {
                **base,
                "LAKEMIX_HOME": str(home),
                "DBT_TARGET_PATH": str(home / "target"),
                "DBT_LOG_PATH": str(home / "logs"),
            }
            if side == "s3":
                env |= {
                    "LAKEMIX_WAREHOUSE": f"s3://{bucket}/bench-{uuid.uuid4().hex[:12]}",
                    "LAKEMIX_S3_ENDPOINT": s3["LAKEMIX_TEST_S3_ENDPOINT"],
                    "AWS_REGION": s3["LAKEMIX_TEST_S3_REGION"],
                    "AWS_ACCESS_KEY_ID": s3["LAKEMIX_TEST_S3_ACCESS_KEY_ID"],
                    "AWS_SECRET_ACCESS_KEY": s3["LAKEMIX_TEST_S3_SECRET_ACCESS_KEY"],
                }
            results[side] = run_side(env, corpora, metrics if side == "s3" else None, bucket)
            results[side]["stored"] = warehouse_bytes(env)
    load = os.getloadavg()
    print(
        f"bench/s3: {', '.join(c.name for c in corpora)}; load average (1 min) "
        f"{start_load[0]:.1f} at the start, {load[0]:.1f} at the end (2 shared cores)"
    )
    print(
        f"{'stage':<14} {'local s':>8} {'S3 s':>8} {'local CPU':>9} {'S3 CPU':>8} "
        f"{'CPU S3/l':>8} {'server CPU':>10} {'requests':>9} {'MB to S3':>9} {'MB from S3':>10}"
    )
    side_local, side_s3 = results["local"], results["s3"]
    for stage in [*STAGES, "total"]:
        if stage == "total":
            values = [
                sum(side[key].values())
                for side in (side_local, side_s3)
                for key in ("times", "cpu")
            ]
            t = {
                key: sum(spent.get(key, 0) for spent in side_s3["traffic"].values())
                for key in ("requests", "received", "sent")
            }
            server = sum(side_s3["server"].values())
        else:
            values = [
                side[key][stage] for side in (side_local, side_s3) for key in ("times", "cpu")
            ]
            t = side_s3["traffic"].get(stage, {})
            server = side_s3["server"][stage]
        local, local_cpu, remote, remote_cpu = values
        print(
            f"{stage:<14} {local:>8.1f} {remote:>8.1f} {local_cpu:>9.1f} {remote_cpu:>8.1f} "
            f"{remote_cpu / max(local_cpu, 1e-9):>8.2f} {server:>10.1f} "
            f"{t.get('requests', 0):>9.0f} {t.get('received', 0) / 1e6:>9.2f} "
            f"{t.get('sent', 0) / 1e6:>10.2f}"
        )
    kinds = {}
    for t in results["s3"]["traffic"].values():
        for key, value in t.items():
            if key.startswith("requests "):
                kinds[key[9:]] = kinds.get(key[9:], 0) + value
    top = sorted(kinds.items(), key=lambda kv: -kv[1])[:8]
    print("S3 requests by type: " + ", ".join(f"{k} {v:.0f}" for k, v in top))
    print(
        f"warehouse bytes: local {results['local']['stored'] / 1e6:.2f} MB, "
        f"S3 {results['s3']['stored'] / 1e6:.2f} MB; local block writes "
        f"{results['local']['written'] / 1e6:.2f} MB (all files of the local side)"
    )


if __name__ == "__main__":
    main()
