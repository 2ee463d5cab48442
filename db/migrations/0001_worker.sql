-- Worker additions (issue 3). Additive and idempotent: IF NOT EXISTS everywhere.
-- Duration of the registry call of an attempt, for the latency metric.
ALTER TABLE "submission_attempts" ADD COLUMN IF NOT EXISTS "latency_ms" integer;
--> statement-breakpoint
-- The submission's state after the attempt (sent, error, queued): the sent/error counters of /metrics.
ALTER TABLE "submission_attempts" ADD COLUMN IF NOT EXISTS "result_status" text;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submission_attempts_ended_idx" ON "submission_attempts" USING btree ("ended_at");
--> statement-breakpoint
-- The claim scans queued rows per account in id order.
CREATE INDEX IF NOT EXISTS "submissions_queued_idx" ON "submissions" USING btree (coalesce("account_id", 1), "id") WHERE "status" = 'queued';
--> statement-breakpoint
-- Stale-sending recovery looks only at rows in flight.
CREATE INDEX IF NOT EXISTS "submissions_sending_idx" ON "submissions" USING btree ("heartbeat_at") WHERE "status" = 'sending';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submissions_purge_idx" ON "submissions" USING btree ("purge_after") WHERE "purge_after" IS NOT NULL;
--> statement-breakpoint
-- Wakes the worker at once when a submission becomes queued. The payload is the account id,
-- so one transaction that queues many rows of one account sends one notification.
CREATE OR REPLACE FUNCTION gateway_notify_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gateway_queue', coalesce(NEW.account_id, 1)::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'submissions_notify_queue') THEN
    CREATE TRIGGER submissions_notify_queue
      AFTER INSERT OR UPDATE OF status, next_attempt_at ON submissions
      FOR EACH ROW WHEN (NEW.status = 'queued')
      EXECUTE FUNCTION gateway_notify_queue();
  END IF;
END $$;
