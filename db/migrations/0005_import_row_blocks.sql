CREATE TABLE IF NOT EXISTS "import_row_blocks" (
	"batch_id" integer NOT NULL,
	"block_no" integer NOT NULL,
	"raw_enc" text NOT NULL,
	"purge_after" timestamp with time zone,
	CONSTRAINT "import_row_blocks_pkey" PRIMARY KEY("batch_id","block_no")
);
--> statement-breakpoint
ALTER TABLE "import_rows" DROP CONSTRAINT IF EXISTS "import_rows_batch_row_uq";--> statement-breakpoint
ALTER TABLE "import_rows" ALTER COLUMN "raw_enc" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "import_rows" DROP COLUMN IF EXISTS "id";--> statement-breakpoint
DO $$ BEGIN ALTER TABLE "import_rows" ADD CONSTRAINT "import_rows_pkey" PRIMARY KEY("batch_id","row_index"); EXCEPTION WHEN duplicate_object OR duplicate_table OR invalid_table_definition THEN NULL; END $$;--> statement-breakpoint
DO $$ BEGIN ALTER TABLE "import_row_blocks" ADD CONSTRAINT "import_row_blocks_batch_id_import_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."import_batches"("id") ON DELETE cascade ON UPDATE no action; EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "import_row_blocks_purge_idx" ON "import_row_blocks" USING btree ("purge_after");