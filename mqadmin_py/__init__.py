"""The ``mqadmin`` admin toolkit: the CLI, the local sandbox and the entry points' shared start-up options."""
