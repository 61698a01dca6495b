"""What runs when. Each line is one job: a name, the job function ("module:function", run by
app.core.jobs as one unit of work) and either `every` seconds or a `cron` expression (local
time of the machine, as RQ's cron reads it). Adding a job is adding a line."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Scheduled:
    name: str
    func: str
    every: int | None = None  # seconds
    cron: str | None = None  # "minute hour day month weekday"
    timeout: int = 600


SCHEDULE: tuple[Scheduled, ...] = (
    Scheduled("overdue-warnings", "app.schedule.jobs:refresh_overdue_warnings", every=300),
    Scheduled("advert-endings", "app.market.endings:close_ended_adverts", every=60),
    Scheduled("reserve-expiry", "app.market.reserve:expire_decisions", every=60),
    Scheduled("reset-token-purge", "app.schedule.jobs:purge_reset_tokens", cron="17 * * * *"),
    Scheduled("service-due", "app.schedule.jobs:evaluate_service_due", cron="40 2 * * *"),
    Scheduled("ranking-refresh", "app.ranking.jobs:refresh_rankings", every=900),
    Scheduled("mail-resend", "app.mail.jobs:resend_queued", every=300),
    Scheduled("webhook-retries", "app.automation.webhooks:send_due", every=60),
    Scheduled("module-rules", "app.automation.rules:run_rules", every=900),
)
