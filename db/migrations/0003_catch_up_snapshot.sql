-- Carries drizzle-kit's snapshot (meta/0003_snapshot.json) up to the schema: the columns and
-- indexes of 0001_worker and 0002_import were written there by hand, so this migration has
-- nothing to apply; later `npm run db:generate` diffs start from the real schema.
SELECT 1;
