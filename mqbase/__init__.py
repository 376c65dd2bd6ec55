"""The floor every other package stands on: wire protos, response codes, clients, security, config parsing, files.

It imports none of the project's other packages (``tests/unit/test_layers.py``); ``controller/`` and ``agents/``
import only this, ``spark/`` this and the store readers of ``agents/``, and the CLI everything.
"""

__version__ = "0.1.0"
