"""Regenerate the Python stubs from the `.proto` files next to this module.

The stubs are committed so that installing the package needs no protoc; the
test suite regenerates them into a temporary folder and fails when the
committed copies differ (``tests/unit/mqbase/test_proto_stubs.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parent
REPO_ROOT = PROTO_DIR.parent.parent
PROTO_FILES = ("common.proto", "controller.proto", "agent.proto")


def generate(out_root: Path) -> list[Path]:
    """Run protoc for every `.proto` file; return the generated paths under `out_root`.

    Paths are relative to the repository root so the generated imports read
    ``from mqbase.proto import common_pb2`` (running protoc inside the
    folder would give ``import common_pb2``, which breaks inside a package).
    """
    from grpc_tools import protoc  # only needed at development time

    out_root.mkdir(parents=True, exist_ok=True)
    rel = [str((PROTO_DIR / name).relative_to(REPO_ROOT)) for name in PROTO_FILES]
    include = str(Path(protoc.__file__).resolve().parent / "_proto")
    args = [
        "protoc",
        f"-I{REPO_ROOT}",
        f"-I{include}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        *rel,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed: {' '.join(args)}")
    out_dir = out_root / "mqbase" / "proto"
    return sorted(p for p in out_dir.iterdir() if "_pb2" in p.name)


def main() -> int:
    """Regenerate the stubs in place."""
    generated = generate(REPO_ROOT)
    for path in generated:
        print(path.relative_to(REPO_ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
