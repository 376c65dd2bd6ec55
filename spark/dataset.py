"""Writing and checking fleet datasets (``spark/schema.py``) with pyarrow; no Spark needed.

One snapshot is written as one Parquet file per table, first under a hidden temporary name and then renamed, so a
reader (or a crashed collect) never sees half a file: Spark and pyarrow skip names starting with ``.`` or ``_``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from spark.errors import SparkError
from spark.schema import TABLES


class DatasetError(SparkError, ValueError):
    """A dataset directory that cannot be read as a fleet dataset: missing tables or columns, unreadable files."""


def snapshot_name(ts: datetime) -> str:
    return f"snapshot-{ts.astimezone(UTC).strftime('%Y%m%dT%H%M%S%fZ')}-{uuid.uuid4().hex[:8]}.parquet"


def write_table(out: Path, table_name: str, table: pa.Table, ts: datetime) -> Path:
    """Append `table` (already in the table's schema) to dataset `out` as one file; returns its path."""
    schema = TABLES[table_name]
    table = table.cast(schema)  # raises on a missing column or an impossible type: nothing is written
    directory = Path(out) / table_name
    directory.mkdir(parents=True, exist_ok=True)
    final = directory / snapshot_name(ts)
    temp = directory / f".{final.name}.tmp"
    pq.write_table(table, temp, compression="zstd")
    with open(temp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(temp, final)
    return final


def rows_table(table_name: str, rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """A table of `table_name`'s schema from row dicts (the collect path: thousands of rows, not millions)."""
    return pa.Table.from_pylist(list(rows), schema=TABLES[table_name])


def write_snapshot(out: Path, tables: Mapping[str, pa.Table], ts: datetime) -> dict[str, Path]:
    """Write every table of one snapshot (all four must be given; empty tables are written too)."""
    missing = sorted(set(TABLES) - set(tables))
    if missing:
        raise ValueError(f"a snapshot needs every table; missing {', '.join(missing)}")
    return {name: write_table(out, name, tables[name], ts) for name in TABLES}


def check_dataset(root: Path) -> None:
    """Raise DatasetError naming what is wrong if `root` is not a readable fleet dataset.

    Checks that each table directory exists and holds at least one Parquet file, and that every file's schema
    has every column of the table with a compatible type; reading the data is left to the report.
    """
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such directory (write one with 'mqadmin epochs collect' or 'epochs synth')")
    for name, schema in TABLES.items():
        directory = root / name
        files = sorted(p for p in directory.glob("*.parquet") if not p.name.startswith((".", "_")))
        if not files:
            raise DatasetError(f"{root}: table {name} is missing or empty (expected {directory}/*.parquet)")
        for path in files:
            try:
                found = pq.read_schema(path)
            except (OSError, pa.ArrowException) as exc:
                raise DatasetError(f"{path}: not a readable Parquet file ({exc})") from exc
            for field in schema:
                if field.name not in found.names:
                    raise DatasetError(f"{path}: column {field.name} of table {name} is missing")
                have = found.field(field.name).type
                if not _compatible(have, field.type):
                    raise DatasetError(f"{path}: column {field.name} is {have}, expected {field.type}")


def _compatible(have: pa.DataType, want: pa.DataType) -> bool:
    t = pa.types
    if have == want:
        return True
    if t.is_integer(want):
        return bool(t.is_integer(have))
    if t.is_timestamp(want):
        return bool(t.is_timestamp(have))
    if t.is_string(want):
        return bool(t.is_string(have) or t.is_large_string(have))
    if t.is_list(want):
        return bool((t.is_list(have) or t.is_large_list(have)) and t.is_integer(have.value_type))
    return False


def now() -> datetime:
    return datetime.now(UTC)
