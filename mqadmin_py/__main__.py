"""Entry point of ``mqadmin``: runs the command tree and maps expected failures to exit codes."""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from mqadmin_py.app import app
    from mqadmin_py.output import complain
    from mqbase.errors import MqError

    try:
        app(prog_name="mqadmin")  # usage errors exit 2 inside typer
    except MqError as exc:
        complain(exc)
        sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()
