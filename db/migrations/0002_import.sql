-- Import additions (issue 4). Additive and idempotent: IF NOT EXISTS everywhere.
-- How the upload was read (kind, encoding, separator, 1904 dates): needed to read rows again.
ALTER TABLE "import_batches" ADD COLUMN IF NOT EXISTS "file_meta" jsonb;--> statement-breakpoint
-- The purge of staged data (worker) finds expired batches by this; rows cascade.
CREATE INDEX IF NOT EXISTS "import_batches_purge_idx" ON "import_batches" USING btree ("purge_after");--> statement-breakpoint
-- The drift report looks for the account's most recently saved column mapping.
CREATE INDEX IF NOT EXISTS "column_mappings_account_updated_idx" ON "column_mappings" USING btree ("account_id", "updated_at");
--> statement-breakpoint
-- Derived once per row (no personal data), so the preview does not decrypt the batch.
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
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "recorded_data" text;
