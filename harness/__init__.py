"""What tests and benchmarks share to drive the app: its server, its protocol, its caps."""
