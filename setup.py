"""Build hook for the one compiled module: the replication scan's fast path (agents/store/_fastscan.c).

Everything else is in pyproject.toml. The extension is optional: without a C compiler, zlib's headers or
Python's, the install still succeeds and record.py checks every record in Python (correct, and several times
slower for small messages; ``mqagent`` says so in its log at start).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("agents.store._fastscan", ["agents/store/_fastscan.c"], libraries=["z"], optional=True),
    ]
)
