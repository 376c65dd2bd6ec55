"""POP consumption's pure core: filters, receipt handles and a group's per-queue state (docs/pop.md).

No I/O, threads or clock here: the broker reads the consume queue and the clock, calls ``decide`` and writes
the events it returns to the commit log; every replica rebuilds the same state by ``apply``-ing them.
"""
