"""gunicorn settings for the benchmarks: none beyond the command line (no access log)."""
