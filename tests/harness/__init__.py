"""The test harness: every helper that more than one test module uses, in one place.

``wait`` polls (one ``wait_until``), ``processes`` starts and stops child processes by pid (hands out
ports, runs ``python -m`` to its exit), ``agents`` runs real ``mqagent`` processes, ``controllers`` talks to a
real controller group (a client that waits out elections, the ``FakeBroker`` that plays a broker against it),
``fuzzing`` holds the fuzz suite's reproducible hypothesis settings and file helpers. Without processes:
``controller_state`` builds controller states (and an in-memory Raft member), ``controller_invariants`` draws
random requests and checks the state invariants, ``ha_master`` drives an HA master over a real store, and
``synth_oracle`` computes the fleet report's figures in plain Python. The product's own
``mqadmin_py.sandbox`` stays the product; tests reuse it through the ``sandbox`` fixtures in conftest.
Fixtures live in ``conftest.py`` files; helpers live here, and tests import them from here.
"""
