"""Scheduled work: a table of jobs and their times, run by RQ's cron scheduler when REDIS_URL
is set, or inline by `flask --app wsgi scheduler` without Redis (started by `make run`)."""
