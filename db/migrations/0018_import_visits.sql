ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "visit_key" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "plate_hmac" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "plate_missing" boolean;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "left_out" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN IF NOT EXISTS "left_out_by" text;