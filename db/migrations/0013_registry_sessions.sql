CREATE TABLE IF NOT EXISTS "registry_sessions" (
	"account_id" integer PRIMARY KEY NOT NULL,
	"epoch" integer NOT NULL,
	"token_enc" text NOT NULL,
	"login_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"worker_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DO $$ BEGIN ALTER TABLE "registry_sessions" ADD CONSTRAINT "registry_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action; EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$;