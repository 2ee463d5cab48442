CREATE TABLE IF NOT EXISTS "master_keys" (
	"key_id" text PRIMARY KEY NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- A database of an earlier build records the keys its ciphertext is already under
-- (v1.<keyId>.<iv>.<tag>.<body>, src/crypto/envelope.ts).
INSERT INTO "master_keys" ("key_id")
SELECT DISTINCT split_part(enc, '.', 2) FROM (
  SELECT "reg_creds_enc" AS enc FROM "accounts"
  UNION ALL SELECT "reg_creds_enc" FROM "submissions"
  UNION ALL SELECT "vin_key_enc" FROM "import_batches"
  UNION ALL SELECT "raw_enc" FROM "import_rows"
  UNION ALL SELECT "raw_enc" FROM "import_row_blocks"
  UNION ALL SELECT "token_enc" FROM "registry_sessions"
) AS encrypted
WHERE enc LIKE 'v1.%'
ON CONFLICT ("key_id") DO NOTHING;
