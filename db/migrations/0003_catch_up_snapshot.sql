-- Records in drizzle-kit's snapshot the columns and indexes that 0001_worker and 0002_import
-- added by hand, so later `npm run db:generate` diffs start from the real schema. A no-op
-- on any database those migrations ran on.
ALTER TABLE "submission_attempts" ADD COLUMN IF NOT EXISTS "latency_ms" integer;--> statement-breakpoint
ALTER TABLE "submission_attempts" ADD COLUMN IF NOT EXISTS "result_status" text;--> statement-breakpoint
ALTER TABLE "import_batches" ADD COLUMN IF NOT EXISTS "file_meta" jsonb;--> statement-breakpoint
ALTER TABLE "import_batches" ADD COLUMN IF NOT EXISTS "derived_fp" jsonb;--> statement-breakpoint
ALTER TABLE "import_batches" ADD COLUMN IF NOT EXISTS "vin_key_enc" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "verdict" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "idem_key" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "legacy_key" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "codes" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "unmapped" jsonb;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "data_prestatie" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "odometru_final" double precision;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "client_codes" jsonb;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "rule_bound" boolean;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "vin_hmac" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "recorded_odometru" double precision;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "recorded_data" text;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "column_mappings_account_updated_idx" ON "column_mappings" USING btree ("account_id","updated_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "import_batches_purge_idx" ON "import_batches" USING btree ("purge_after");