CREATE TABLE IF NOT EXISTS "import_uploads" (
	"batch_id" integer PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"sheets" jsonb NOT NULL,
	"code_page" integer,
	"request_id" text,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_by" text,
	"claimed_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"claims" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
DO $$ BEGIN ALTER TABLE "import_uploads" ADD CONSTRAINT "import_uploads_batch_id_import_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."import_batches"("id") ON DELETE cascade ON UPDATE no action; EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$;--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "import_upload_pieces" (
	"batch_id" integer NOT NULL,
	"piece" integer NOT NULL,
	"piece_enc" text NOT NULL,
	CONSTRAINT "import_upload_pieces_pkey" PRIMARY KEY("batch_id","piece")
);
--> statement-breakpoint
DO $$ BEGIN ALTER TABLE "import_upload_pieces" ADD CONSTRAINT "import_upload_pieces_batch_id_import_uploads_batch_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."import_uploads"("batch_id") ON DELETE cascade ON UPDATE no action; EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "import_uploads_account_claimed_idx" ON "import_uploads" USING btree ("account_id","claimed_at");--> statement-breakpoint
-- The files waiting or being staged: counted by every upload's admission, scanned by every claim.
CREATE INDEX IF NOT EXISTS "import_batches_unstaged_idx" ON "import_batches" USING btree ("account_id") WHERE "status" IN ('queued', 'staging');
--> statement-breakpoint
-- A batch an earlier build left `staging` has no file in the queue for a stager to take up: failed, as that build's sweep would have, without its rows. Only one whose lease (727012, its id) is free: a server of the earlier build may still be staging it (a rolling upgrade).
-- release-compatible: fails only stagings no live server of the release holds, as the release's own sweep does
WITH "failed" AS (
  UPDATE "import_batches" SET "status" = 'failed', "row_count" = 0, "derived_fp" = NULL,
    "error" = '{"cod": "IMPORT_INTRERUPT", "cauza": "Procesul care încărca fișierul s-a oprit înainte de final.", "request_id": null}'::jsonb
  WHERE "status" = 'staging' AND NOT EXISTS (SELECT 1 FROM "import_uploads" u WHERE u."batch_id" = "import_batches"."id")
    AND pg_try_advisory_xact_lock(727012, "id")
  RETURNING "id"
), "rows" AS (
  DELETE FROM "import_rows" WHERE "batch_id" IN (SELECT "id" FROM "failed")
), "blocks" AS (
  DELETE FROM "import_row_blocks" WHERE "batch_id" IN (SELECT "id" FROM "failed")
)
DELETE FROM "import_batch_vin_submissions" WHERE "batch_id" IN (SELECT "id" FROM "failed");
