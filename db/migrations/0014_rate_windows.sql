CREATE UNLOGGED TABLE IF NOT EXISTS "rate_windows" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"window_ms" integer NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_windows_scope_key_pk" PRIMARY KEY("scope","key")
);
