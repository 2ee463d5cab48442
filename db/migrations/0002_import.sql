-- Import additions (issue 4). Additive and idempotent: IF NOT EXISTS everywhere.
-- How the upload was read (kind, encoding, separator, 1904 dates): needed to read rows again.
ALTER TABLE "import_batches" ADD COLUMN IF NOT EXISTS "file_meta" jsonb;--> statement-breakpoint
-- The purge of staged data (worker) finds expired batches by this; rows cascade.
CREATE INDEX IF NOT EXISTS "import_batches_purge_idx" ON "import_batches" USING btree ("purge_after");--> statement-breakpoint
-- The drift report looks for the account's most recently saved column mapping.
CREATE INDEX IF NOT EXISTS "column_mappings_account_updated_idx" ON "column_mappings" USING btree ("account_id", "updated_at");
