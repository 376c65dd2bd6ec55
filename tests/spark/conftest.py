"""The one SparkSession every Spark test shares (a JVM start costs about 10 s; later sessions are cheap).

The directory is skipped when pyspark, pyarrow or pandas is not installed (the ``[spark]`` extra) or there is
no Java to run Spark on.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")
pytest.importorskip("pandas")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java (none on PATH, JAVA_HOME unset)", allow_module_level=True)

from pyspark.sql import SparkSession

from spark.session import build_session
from tests.harness.spark_conf import TEST_CONF


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """A local[2] session for the whole test run, stopped at the end."""
    session = build_session(master="local[2]", app_name="mqadmin-tests", conf=TEST_CONF)
    yield session
    session.stop()
