"""gunicorn settings: bind to loopback on $PORT; no database connection before the fork."""

import multiprocessing
import os

bind = f"127.0.0.1:{os.environ.get('PORT', '5000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2))
worker_class = "sync"
preload_app = False
accesslog = "-"
timeout = 60
