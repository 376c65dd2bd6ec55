"""The Spark settings of the tests' sessions: small shuffles and a JVM that starts fast.

The shared session (tests/spark/conftest.py) is built with them, and the tests that run ``mqadmin epochs report``
as a process pass them on its command line. Plain values: importing this needs no pyspark.
"""

from __future__ import annotations

TEST_CONF = {
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    # A fast JVM start for small jobs (C1 compiler only, serial GC); it slows big ones, so tests only.
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
}
