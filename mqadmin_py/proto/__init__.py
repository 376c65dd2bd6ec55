"""Generated gRPC stubs and their `.proto` sources (regenerate with `python -m mqadmin_py.proto.generate`)."""
