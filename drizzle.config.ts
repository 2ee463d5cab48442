import { defineConfig } from 'drizzle-kit';

// Only used by `npm run db:generate`; the app applies the committed SQL at start-up.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
});
