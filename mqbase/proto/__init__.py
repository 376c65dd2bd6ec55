"""Generated gRPC stubs and their `.proto` sources (regenerate with `python -m mqbase.proto.generate`)."""
