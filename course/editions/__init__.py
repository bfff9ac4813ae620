"""Tooling for the editions, which no lesson imports: executing notebooks in place and building the
Japanese edition."""
