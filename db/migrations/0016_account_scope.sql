DROP INDEX IF EXISTS "submissions_account_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "submissions_queued_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "submissions_to_resolve_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "submissions_account_status_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "submissions_account_reg_cause_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "submissions_resolve_idx";--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN IF NOT EXISTS "scope_account_id" integer GENERATED ALWAYS AS (coalesce(account_id, 1)) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submissions_account_idx" ON "submissions" USING btree ("scope_account_id","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submissions_queued_idx" ON "submissions" USING btree ("scope_account_id","id") WHERE "submissions"."status" = 'queued';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submissions_to_resolve_idx" ON "submissions" USING btree ("scope_account_id","id") WHERE "submissions"."status" IN ('needs_data', 'needs_mapping', 'error');--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submissions_account_status_idx" ON "submissions" USING btree ("scope_account_id","status");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submissions_account_reg_cause_idx" ON "submissions" USING btree ("scope_account_id","status",("reg_error" ->> 'cod')) WHERE "submissions"."reg_error" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submissions_resolve_idx" ON "submissions" USING btree ("scope_account_id","id") WHERE "submissions"."status" IN ('needs_data', 'needs_mapping', 'error') OR ("submissions"."status" = 'queued' AND "submissions"."reg_error"->>'cod' = 'REG_CREDENTIALE_LIPSA');