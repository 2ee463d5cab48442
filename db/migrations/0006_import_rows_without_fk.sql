ALTER TABLE "import_rows" DROP CONSTRAINT IF EXISTS "import_rows_batch_id_import_batches_id_fk";
--> statement-breakpoint
-- A batch's rows go with it, as the foreign key's cascade did, in one statement per delete.
CREATE OR REPLACE FUNCTION gateway_delete_import_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM import_rows WHERE batch_id IN (SELECT id FROM gone);
  RETURN NULL;
END $$;
--> statement-breakpoint
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'import_batches_delete_rows') THEN
    CREATE TRIGGER import_batches_delete_rows
      AFTER DELETE ON import_batches
      REFERENCING OLD TABLE AS gone
      FOR EACH STATEMENT
      EXECUTE FUNCTION gateway_delete_import_rows();
  END IF;
END $$;
