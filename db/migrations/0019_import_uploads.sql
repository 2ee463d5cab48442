CREATE TABLE IF NOT EXISTS "import_uploads" (
	"batch_id" integer PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"file_enc" text NOT NULL,
	"sheets" jsonb NOT NULL,
	"request_id" text,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_by" text,
	"claimed_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"claims" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
DO $$ BEGIN ALTER TABLE "import_uploads" ADD CONSTRAINT "import_uploads_batch_id_import_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."import_batches"("id") ON DELETE cascade ON UPDATE no action; EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "import_uploads_account_claimed_idx" ON "import_uploads" USING btree ("account_id","claimed_at");--> statement-breakpoint
-- The files waiting or being staged: counted by every upload's admission, scanned by every claim.
CREATE INDEX IF NOT EXISTS "import_batches_unstaged_idx" ON "import_batches" USING btree ("account_id") WHERE "status" IN ('queued', 'staging');
