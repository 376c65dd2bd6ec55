"""Wire formats of the broker agents: pure encoders and decoders; the sockets live in ``agents/net.py``."""
