"""Build the official clients' drivers (tests/clients/README.md): ``python -m tests.harness.client_build [LANG ...]``.

Each driver is built by its folder's ``build.sh`` into ``$XDG_CACHE_HOME/mqadmin-py/clients/<language>``, outside
the clone, so a fresh clone reuses the registries' caches and the build outputs. A language whose toolchain is
not installed is skipped with a line saying so, unless ``MQADMIN_REQUIRE_CLIENTS=1`` (CI), where it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "clients"
TOOLCHAINS = {"java": ("java", "mvn"), "go": ("go",), "node": ("node", "npm"), "python": (), "rust": ("cargo",)}
"""Each driver's language → the commands its build needs."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mqadmin-py" / "clients"


def required() -> bool:
    return os.environ.get("MQADMIN_REQUIRE_CLIENTS") == "1"


def missing_tools(language: str) -> list[str]:
    return [tool for tool in TOOLCHAINS[language] if shutil.which(tool) is None]


def build(language: str) -> Path:
    """Build one driver (quick when nothing changed); its executable. Raises CalledProcessError on a failed build."""
    out = cache_dir() / language
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHON": sys.executable}  # the Python driver runs with the project's interpreter
    subprocess.run(["bash", str(HERE / language / "build.sh"), str(out)], check=True, stdout=sys.stderr, env=env)
    return out / "driver"


def main(languages: list[str]) -> int:
    failed = False
    for language in languages or list(TOOLCHAINS):
        if language not in TOOLCHAINS:
            print(f"clients: no driver for {language!r}; one of {', '.join(TOOLCHAINS)}", file=sys.stderr)
            return 2
        if missing := missing_tools(language):
            print(
                f"clients: {language}: {', '.join(missing)} not installed: its tests will be skipped", file=sys.stderr
            )
            failed |= required()
            continue
        started = time.monotonic()
        try:
            build(language)
        except subprocess.CalledProcessError as exc:
            print(f"clients: {language}: build failed ({exc.returncode}); see the lines above", file=sys.stderr)
            failed = True
            continue
        print(f"clients: {language} driver ready in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
