CREATE TABLE IF NOT EXISTS "import_batch_vin_submissions" (
	"batch_id" integer NOT NULL,
	"vin_hmac" text NOT NULL,
	"submission_id" bigint NOT NULL,
	CONSTRAINT "import_batch_vin_submissions_pkey" PRIMARY KEY("batch_id","vin_hmac","submission_id")
);
--> statement-breakpoint
DO $$ BEGIN ALTER TABLE "import_batch_vin_submissions" ADD CONSTRAINT "import_batch_vin_submissions_batch_id_import_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."import_batches"("id") ON DELETE cascade ON UPDATE no action; EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$;