"""The committed gRPC stubs must match the .proto files."""

from __future__ import annotations

from pathlib import Path

from mqbase.proto.generate import PROTO_DIR, generate


def test_committed_stubs_match_proto_files(tmp_path: Path) -> None:
    generated = generate(tmp_path)
    assert generated, "protoc produced nothing"
    stale = [p.name for p in generated if (PROTO_DIR / p.name).read_bytes() != p.read_bytes()]
    assert not stale, f"stubs out of date: {stale}; run `python -m mqbase.proto.generate` and commit"


def test_every_generated_stub_is_committed(tmp_path: Path) -> None:
    names = {p.name for p in generate(tmp_path)}
    committed = {p.name for p in PROTO_DIR.iterdir() if "_pb2" in p.name}
    assert names == committed
