"""Delayed (timer) messages' pure core: what a send with a delivery time stores, what is due, the re-put copy.

No I/O, threads or clock here: the broker's send path stores a timer message under ``rmq_sys_wheel_timer``, and
the master's delivery thread asks what is due at the time it read, re-puts the copies and records the progress
through the consumer-state log (docs/storage.md, "Delayed messages").
"""
