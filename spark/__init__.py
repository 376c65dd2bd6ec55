"""PySpark fleet analytics over collected epoch caches (installed with the ``[spark]`` extra)."""
