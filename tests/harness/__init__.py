"""The test harness: every helper that more than one test module uses, in one place.

``wait`` polls (one ``wait_until``), ``processes`` starts and stops child processes by pid (and hands out
ports), ``agents`` runs real ``mqagent`` processes, ``controllers`` talks to a real controller group (a
client that waits out elections, the ``FakeBroker`` that plays a broker against it), ``fuzzing`` holds the
fuzz suite's reproducible hypothesis settings and file helpers. The product's own
``mqadmin_py.sandbox`` stays the product; tests reuse it through the ``sandbox`` fixtures in conftest.
Fixtures live in ``conftest.py`` files; helpers live here, and tests import them from here.
"""
