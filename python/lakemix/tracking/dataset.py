"""A release as an MLflow dataset: its own source kind, digest, schema and profile.

MLflow knows files, HTTP, Delta, Hugging Face and Spark sources; a lakemix release is none of
them, so it registers its own kind, ``lakemix_release``: the source names the release (tag,
mix, checksum, when it was released, the config hash, the git commit it was built from, the
lakehouse), and ``load()`` returns its manifest. Importing this module imports mlflow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from mlflow.data.dataset import Dataset
from mlflow.data.dataset_source import DatasetSource
from mlflow.data.dataset_source_registry import register_dataset_source
from mlflow.entities import DatasetInput, InputTag
from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

from lakemix.settings import Settings
from lakemix.tables import mix_table

if TYPE_CHECKING:
    from lakemix.versions.manifest import Manifest

SOURCE_TYPE = "lakemix_release"
SOURCE_FIELDS = ("tag", "mix", "checksum", "released_at", "config_hash", "git_commit", "lakehouse")
# mlflow.types names of the Iceberg primitive types; other types keep Iceberg's own name.
COLUMN_TYPES = {
    "string": "string",
    "long": "long",
    "int": "integer",
    "double": "double",
    "float": "float",
    "boolean": "boolean",
    "binary": "binary",
    "timestamp": "datetime",
    "timestamptz": "datetime",
    "date": "datetime",
}


class ReleaseSource(DatasetSource):
    """Where a lakemix dataset comes from: release ``tag`` of a lakehouse.

    Args:
        fields: The release's ``SOURCE_FIELDS`` (``from_manifest`` fills them).
    """

    def __init__(self, **fields: str) -> None:
        missing = [name for name in ("tag", "mix", "checksum") if not fields.get(name)]
        if missing:
            raise ValueError(f"a lakemix release source needs {', '.join(missing)}: {fields!r}")
        self.fields = {k: str(v) for k, v in fields.items() if k in SOURCE_FIELDS}

    @classmethod
    def from_manifest(cls, manifest: Manifest, settings: Settings) -> ReleaseSource:
        """The source of release ``manifest`` in the lakehouse of ``settings``."""
        return cls(
            tag=manifest.tag,
            mix=manifest.mix,
            checksum=manifest.checksum,
            released_at=manifest.released_at,
            config_hash=manifest.config_hash,
            git_commit=manifest.git.commit,
            lakehouse=str(settings.home),
        )

    @staticmethod
    def _get_source_type() -> str:
        return SOURCE_TYPE

    def load(self) -> Manifest:
        """The release manifest, from the lakehouse of the environment (``LAKEMIX_HOME``).

        Raises:
            ReleaseError: This lakehouse has no such release.
            ValueError: It has one of that tag, but with another checksum.
        """
        from lakemix.versions import get_release

        manifest = get_release(self.fields["tag"])
        if manifest.checksum != self.fields["checksum"]:
            raise ValueError(
                f"release {self.fields['tag']} here has checksum {manifest.checksum}, the "
                f"run's has {self.fields['checksum']}: point LAKEMIX_HOME at the lakehouse "
                f"{self.fields.get('lakehouse', '?')}"
            )
        return manifest

    @staticmethod
    def _can_resolve(raw_source: Any) -> bool:
        return isinstance(raw_source, dict) and raw_source.get("kind") == SOURCE_TYPE

    @classmethod
    def _resolve(cls, raw_source: Any) -> ReleaseSource:
        return cls(**{k: v for k, v in raw_source.items() if k != "kind"})

    def to_dict(self) -> dict[str, Any]:
        return dict(self.fields)

    @classmethod
    def from_dict(cls, source_dict: dict[Any, Any]) -> ReleaseSource:
        return cls(**source_dict)


register_dataset_source(ReleaseSource)  # type: ignore[arg-type]  # the registry takes classes


def digest_of(checksum: str) -> str:
    """The MLflow digest of a release: the hash part of its checksum (``<rows>-<hash>``).

    MLflow caps digests at 36 characters; the whole checksum is in the source and the tags.
    """
    return checksum.rpartition("-")[2][:36]


class ReleaseDataset(Dataset):
    """One split of a release, as MLflow logs it: name ``<mix>@<tag>``, digest from the checksum,
    the mix table's columns as schema, documents, samples and tokens per language as profile.

    Args:
        manifest: The release manifest.
        split: The split a run reads.
        columns: ``(name, Iceberg type, required)`` of the mix table at the release.
        settings: The lakehouse.
    """

    def __init__(
        self,
        manifest: Manifest,
        split: str,
        columns: list[tuple[str, str, bool]],
        settings: Settings,
    ) -> None:
        self.manifest = manifest
        self.split = split
        self.columns = columns
        name = f"{manifest.mix}@{manifest.tag}"
        source = ReleaseSource.from_manifest(manifest, settings)
        super().__init__(source=source, name=name, digest=digest_of(manifest.checksum))

    def _compute_digest(self) -> str:
        return digest_of(self.manifest.checksum)

    @property
    def schema(self) -> dict[str, Any]:
        return {
            "mlflow_colspec": [
                {"name": name, "type": COLUMN_TYPES.get(kind, kind), "required": required}
                for name, kind, required in self.columns
            ]
        }

    @property
    def profile(self) -> dict[str, Any]:
        mine = self.manifest.split_stats(self.split)
        return {
            "split": self.split,
            "checksum": self.manifest.checksum,
            "documents": sum(s.documents for s in mine),
            "samples": sum(s.samples for s in mine),
            "tokens": sum(s.tokens for s in mine),
            "languages": {
                s.language: {"documents": s.documents, "samples": s.samples, "tokens": s.tokens}
                for s in mine
            },
            "splits": {
                split: sum(s.tokens for s in self.manifest.split_stats(split))
                for split in sorted({s.split for s in self.manifest.stats})
            },
        }

    def to_dict(self) -> dict[str, str]:
        return {
            **super().to_dict(),
            "schema": orjson.dumps(self.schema).decode(),
            "profile": orjson.dumps(self.profile).decode(),
        }

    def to_input(self) -> DatasetInput:
        """The dataset input of a run that trains on this split."""
        context = InputTag(MLFLOW_DATASET_CONTEXT, self.split)
        return DatasetInput(self._to_mlflow_entity(), [context])


def mix_columns(manifest: Manifest, settings: Settings) -> list[tuple[str, str, bool]]:
    """``(name, type, required)`` of the mix table at the release's snapshot."""
    from lakemix.catalog import catalog as open_catalog

    name = mix_table(manifest.mix)
    table = open_catalog(settings).load_table(name)
    snapshot = table.snapshot_by_id(int(manifest.snapshots[name].snapshot_id))
    schema_id = None if snapshot is None else snapshot.schema_id
    schema = table.schemas().get(schema_id) if schema_id is not None else None
    schema = schema or table.schema()
    return [(f.name, str(f.field_type), f.required) for f in schema.fields]
