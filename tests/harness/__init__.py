"""The test harness: every helper that more than one test module uses, in one place.

Processes: ``wait`` polls (one ``wait_until``), ``processes`` starts and stops child processes by pid (hands out
ports, runs ``python -m`` to its exit), ``agents`` runs real ``mqagent`` processes, ``controllers`` talks to a real
controller group (a client that waits out elections, the ``FakeBroker`` that plays a broker against it), ``sandbox``
drives a sandbox as a user does (the ``mqadmin`` CLI as a process, a one-set ``Cluster`` view), ``java_cluster``
runs the reference Java RocketMQ, ``chaos/`` the chaos cluster, its faults and checks, and ``store_child`` is the
store-crash test's child process. Over a running sandbox: ``escape_sets`` reads the two broker sets of the
acting-master escape tests (the controller's view, an agent's listing, escaped changes), ``acting_probes`` probes
one set's replicas and access points while a slave may act, ``official_client`` sends and consumes with the official
Python client, ``v2_messages`` builds raw v2 messages and receives, ``consumer_clients`` and ``consumer_ledger`` run
failover-following consumers and check what they were told, and ``client_build`` and ``client_scenarios`` build and
judge every language's official client. Without processes: ``controller_state`` builds controller states (and an
in-memory Raft member), ``controller_invariants`` draws random requests and checks the state invariants,
``ha_master`` drives an HA master over a real store, ``consumer_runs`` makes random consumer-state logs, ``clock``
is a clock moved by hand, ``aio`` runs coroutines on a loop of their own, ``fuzzing`` holds the fuzz suite's
reproducible hypothesis settings and file helpers, ``json_types`` checks parsed JSON against the ``-o json``
documents' types, ``synth_oracle`` computes the fleet report's figures in plain Python, ``spark_conf`` holds the
Spark tests' settings, ``terminal`` gives a child a pty as stderr, and ``schedule`` orders the test files longest
first. The product's own ``mqadmin_py.sandbox`` stays the product; tests reuse it through the ``sandbox`` fixtures
in conftest. Fixtures live in ``conftest.py`` files; helpers live here, tests (and benchmarks) import them from
here, and none imports a test module or a conftest (``test_layers.py`` checks both).
"""
