"""Shared fixtures: a private lakehouse per test, the real corpora, a PostgreSQL catalog."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from lakemix.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))
WEB = CORPORA / "web"
BIN = Path(sys.executable).parent
# The accuracy objective (severity error) needs 133 good verdicts; the test corpora keep ~30
# documents, so their releases go out with a reason, as `make demo`'s do (docs/quality.md).
UNREVIEWED = ("--accept-unvalidated", "test corpus: no reviewers")
ENV_VARS = (
    "LAKEMIX_HOME",
    "LAKEMIX_CATALOG_URI",
    "LAKEMIX_WAREHOUSE",
    "LAKEMIX_DUCKDB_PATH",
    "LAKEMIX_SNAPSHOTS",
)


@pytest.fixture
def lakehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """An empty embedded lakehouse (SQLite catalog) in a temporary folder."""
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "lakehouse"))
    return Settings.from_env()


def service_variable(name: str) -> str:
    """``name`` from the environment, else from running scripts/services.sh (which starts the
    servers and writes one ``export NAME='value'`` line each); fails when no server gave it."""
    if os.environ.get(name):
        return os.environ[name]
    env_file = ROOT / ".services.env"
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "services.sh")],
        check=True,
        env={**os.environ, "LAKEMIX_SERVICES_ENV": str(env_file)},
    )
    for line in env_file.read_text().splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        if key == name:
            return value.strip("'")
    pytest.fail(f"scripts/services.sh wrote no {name} into {env_file}")


def services_env(*names: str) -> dict[str, str]:
    """Several ``service_variable``s at once, running scripts/services.sh at most once."""
    found = {name: os.environ[name] for name in names if os.environ.get(name)}
    if len(found) < len(names):
        service_variable(next(n for n in names if n not in found))  # starts the servers
        for line in (ROOT / ".services.env").read_text().splitlines():
            key, _, value = line.removeprefix("export ").partition("=")
            if key in names:
                found.setdefault(key, value.strip("'"))
    missing = [name for name in names if name not in found]
    if missing:
        pytest.fail(f"scripts/services.sh wrote no {', '.join(missing)} into .services.env")
    return found


@pytest.fixture(scope="session")
def pg_server_uri() -> str:
    """URI of the test role on the PostgreSQL server scripts/services.sh installs and starts."""
    return service_variable("LAKEMIX_TEST_PG_URI")


@pytest.fixture(scope="session")
def mlflow_uri() -> str:
    """The MLflow tracking server scripts/services.d/50-mlflow.sh installs and starts."""
    return service_variable("LAKEMIX_TEST_MLFLOW_URI")


@pytest.fixture(scope="session")
def spark_master() -> str:
    """URL of the Spark standalone cluster (a master, two workers) that
    scripts/services.d/30-spark-cluster.sh starts: ``LAKEMIX_TEST_SPARK_MASTER``."""
    import socket
    from urllib.parse import urlsplit

    url = service_variable("LAKEMIX_TEST_SPARK_MASTER")  # services.d/30-spark-cluster.sh
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname, parts.port or 7077), timeout=5).close()
    except OSError as exc:
        pytest.fail(f"no Spark master answers at {url} ({exc}): run scripts/spark-cluster.sh start")
    return url


@pytest.fixture
def pg_lakehouse(
    lakehouse: Settings, pg_server_uri: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Settings]:
    """A lakehouse whose Iceberg catalog is a fresh PostgreSQL database."""
    import sqlalchemy

    name = f"lakemix_test_{uuid.uuid4().hex[:12]}"
    admin = sqlalchemy.create_engine(pg_server_uri, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sqlalchemy.text(f'create database "{name}"'))
    monkeypatch.setenv("LAKEMIX_CATALOG_URI", pg_server_uri.rsplit("/", 1)[0] + f"/{name}")
    yield Settings.from_env()
    with admin.connect() as conn:
        conn.execute(sqlalchemy.text(f'drop database if exists "{name}" with (force)'))
    admin.dispose()


PROJECT_PARTS = (
    "dbt_project.yml",
    "profiles.yml",
    "models",
    "macros",
    "seeds",
    "tests",
    "mixes",
    "snapshots",
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the dbt project (tests edit its seeds and models), as the working directory,
    with dbt's target and logs in the test's folder."""
    copy = tmp_path / "project"
    copy.mkdir()
    for name in PROJECT_PARTS:
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, copy / name)
    monkeypatch.chdir(copy)
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    monkeypatch.setenv("DBT_LOG_PATH", str(tmp_path / "logs"))
    return copy


@pytest.fixture(params=["sqlite", "postgres"])
def any_lakehouse(request: pytest.FixtureRequest) -> Settings:
    """The test once on the embedded SQLite catalog and once on PostgreSQL."""
    name = "lakehouse" if request.param == "sqlite" else "pg_lakehouse"
    return request.getfixturevalue(name)  # type: ignore[no-any-return]


@contextlib.contextmanager
def released_lakehouse(tmp: Path, env: dict[str, str] | None = None) -> Iterator[Settings]:
    """A lakehouse in ``tmp``: dolma_cc_en_head and oscar2201 ingested, built, mix demo_unimax
    built and released as v1 (unvalidated: ``UNREVIEWED``). The environment points at it (and
    at dbt's target and logs in ``tmp``) while the context is open. For module- or
    package-scoped fixtures. A ``tmp`` that holds it already (``released_demo``) is entered as
    it is: nothing is built. ``env`` adds variables (another catalog, an object-store
    warehouse) while it is open."""
    from click.testing import CliRunner

    from lakemix.cli import main
    from lakemix.ingest import ingest

    with lakehouse_in(tmp, env) as settings:
        ingest([WEB / "dolma_cc_en_head"], source="dolma_cc_en_head", fmt="jsonl")
        ingest([WEB / "oscar2201"], source="oscar2201", fmt="jsonl")
        dbt("build", tmp=tmp)
        for args in (
            ["mix", "build", "demo_unimax"],
            ["release", "demo_unimax", "--tag", "v1", *UNREVIEWED],
        ):
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 0, result.output
        yield settings


@contextlib.contextmanager
def copied_release(source: Path, tmp: Path) -> Iterator[Settings]:
    """A copy of the released lakehouse in ``source`` (the folder of ``demo_release``) in
    ``tmp``, with dbt's target, relocated (``lakemix relocate``) so it reads and writes its own
    files: for tests that change a released lakehouse, at a fraction of building one."""
    from lakemix.versions.relocate import relocate

    caches = shutil.ignore_patterns("loader", "rebuilds")  # token stores: built where needed
    shutil.copytree(source / "lakehouse", tmp / "lakehouse", symlinks=True, ignore=caches)
    if (source / "target").is_dir():
        shutil.copytree(source / "target", tmp / "target", symlinks=True)
    with lakehouse_in(tmp) as settings:
        relocate(settings=settings)
        yield settings


@contextlib.contextmanager
def lakehouse_in(tmp: Path, env: dict[str, str] | None = None) -> Iterator[Settings]:
    """The environment pointed at the lakehouse in ``tmp`` (and dbt's target and logs there),
    with ``env`` on top, while the context is open."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ENV_VARS:
            patch.delenv(name, raising=False)
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        patch.setenv("LAKEMIX_HOME", str(tmp / "lakehouse"))
        patch.setenv("DBT_TARGET_PATH", str(tmp / "target"))
        patch.setenv("DBT_LOG_PATH", str(tmp / "logs"))
        yield Settings.from_env()


@pytest.fixture(scope="session")
def demo_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a released_lakehouse built once for the session, for the loader and trainer
    tests (which only read it: its token stores are built once too). Open it with
    ``lakehouse_in``."""
    tmp = tmp_path_factory.mktemp("demo_release")
    with released_lakehouse(tmp):
        pass
    return tmp


def load_bench(name: str) -> ModuleType:
    """Import ``bench/<name>.py`` by path (bench is not a package), once per session."""
    module_name = f"bench_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses resolve their module through sys.modules
    spec.loader.exec_module(module)
    return module


def run(
    args: list[str],
    *,
    extra_env: dict[str, str] | None = None,
    timeout: float = 600,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a command from the project root with the test's environment; fail with its output.
    A command still running after ``timeout`` seconds fails the test with the Python stacks of
    its processes (py-spy) before it is killed, so a hang says where it hangs."""
    env = {**os.environ, **(extra_env or {})}
    with subprocess.Popen(
        args,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: killed whole on a timeout
    ) as popen:
        try:
            stdout, stderr = popen.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                stacks = stacks_of(popen.pid)
            finally:  # killed whatever the dump did: leaving the block waits for the process
                os.killpg(popen.pid, signal.SIGKILL)
            stdout, stderr = popen.communicate()
            pytest.fail(
                f"{' '.join(args)} still ran after {timeout:.0f} s\n{stdout[-4000:]}\n"
                f"{stderr[-4000:]}\n{stacks}"
            )
    proc = subprocess.CompletedProcess(args, popen.returncode, stdout, stderr)
    if check and proc.returncode != 0:
        pytest.fail(
            f"{' '.join(args)} exited {proc.returncode}\n"
            f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    return proc


def stacks_of(pid: int) -> str:
    """The Python stacks of process ``pid`` and its descendants, as py-spy dumps them."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
    processes, i = [pid], 0
    while i < len(processes):
        processes += [child for child, parent in parents.items() if parent == processes[i]]
        i += 1
    dumps = []
    for process in processes:
        try:
            dump = subprocess.run(
                [str(BIN / "py-spy"), "dump", "--pid", str(process)],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            dumps.append(f"--- pid {process}: no stack ({exc})")
            continue
        dumps.append(f"--- pid {process}: {dump.stdout}{dump.stderr}")
    return "\n".join(dumps)


def dbt_command(*args: str, tmp: Path) -> tuple[list[str], dict[str, str]]:
    """The command line of dbt on the project and the variables that put its target and logs
    in ``tmp`` (for a test that starts dbt itself; ``dbt`` runs it)."""
    extra = {
        "DBT_TARGET_PATH": str(tmp / "target"),
        "DBT_LOG_PATH": str(tmp / "logs"),
        "DO_NOT_TRACK": "1",
    }
    cmd = [str(BIN / "dbt"), *args, "--project-dir", str(ROOT), "--profiles-dir", str(ROOT)]
    return cmd, extra


def dbt(*args: str, tmp: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run dbt on the project with its target and logs in ``tmp`` (tests never touch ./target)."""
    cmd, extra = dbt_command(*args, tmp=tmp)
    return run(cmd, extra_env=extra, check=check)
