import { Hono } from 'hono';
import type { AppContext } from '../../context';
import type { AppEnv } from '../../http/env';

/** File import (issue 4): upload, column mapping, preview, row edit, commit, export of failed rows. */
export function importRoutes(_ctx: AppContext) {
  const app = new Hono<AppEnv>();
  return app;
}
