"""The source distribution: built with setuptools' own PEP 517 backend from a copy of the tree (the build writes an
egg-info next to pyproject.toml), it must carry the completions, the docs and the license, and setuptools must
not warn about the license metadata (a ``project.license`` table is deprecated; PEP 639 wants an SPDX string)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
NOT_SOURCE = (".venv", ".git", "*.egg-info", "build", "dist", "__pycache__", ".*_cache", ".hypothesis", "*.so")


def test_sdist_carries_completions_docs_and_license(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(REPO, tree, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", BUILD, str(tmp_path / "dist")],
        cwd=tree, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "deprecat" not in (done.stdout + done.stderr).lower(), done.stderr  # e.g. a project.license table
    with tarfile.open(tmp_path / "dist" / done.stdout.strip().splitlines()[-1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
        pkg_info = sdist.extractfile(f"{sdist.getnames()[0].split('/')[0]}/PKG-INFO")
        assert pkg_info is not None
        metadata = pkg_info.read().decode()
    for directory in ("completions", "docs"):
        shipped = {p.relative_to(REPO).as_posix() for p in (REPO / directory).iterdir() if p.is_file()}
        assert shipped and shipped <= names, sorted(shipped - names)
    assert {"LICENSE", "README.md", "agents/store/_fastscan.c", "mqbase/proto/controller.proto"} <= names
    assert "License-Expression: Apache-2.0" in metadata and "License-File: LICENSE" in metadata
    assert (REPO / "LICENSE").read_text().lstrip().startswith("Apache License\n                           Version 2.0")
