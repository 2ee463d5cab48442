import type { TestApp } from './app';
import type { browser } from './web';

type Browser = ReturnType<typeof browser>;

/** The browser's upload as htmx sends it: multipart, the session's cookie, the token in X-CSRF-Token. */
export function webUpload(t: TestApp, b: Browser, bytes: Buffer, filename: string, options: { csrf?: string; sheet?: string; headers?: Record<string, string> } = {}) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), filename);
  if (options.sheet) form.append('foaie', options.sheet);
  return t.app.request('http://localhost/_import/incarca', {
    method: 'POST',
    body: form,
    headers: {
      Host: 'localhost',
      Origin: 'http://localhost',
      'HX-Request': 'true',
      Cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      'X-CSRF-Token': options.csrf ?? b.csrf() ?? '',
      ...options.headers,
    },
  });
}

/** The batch an upload opened (its HX-Redirect to /import/{id}). */
export function batchOf(res: Response): number {
  const to = res.headers.get('hx-redirect') ?? '';
  const id = /^\/import\/(\d+)$/.exec(to)?.[1];
  if (!id) throw new Error(`no batch in HX-Redirect "${to}" (status ${res.status})`);
  return Number(id);
}

/** Waits until a stager has staged (or failed) a batch the dashboard queued; its status then. */
export async function stagedBatch(t: TestApp, batchId: number): Promise<string> {
  for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 10))) {
    const [row] = await t.ctx.sql<{ status: string }[]>`SELECT status FROM import_batches WHERE id = ${batchId}`;
    if (row && row.status !== 'queued' && row.status !== 'staging') return row.status;
    if (Date.now() - started > 30_000) throw new Error(`batch ${batchId} still ${row?.status}`);
  }
}

/** A dashboard upload once staged: its batch id (the upload must be accepted). */
export async function webStaged(t: TestApp, b: Browser, bytes: Buffer, filename: string): Promise<number> {
  const id = batchOf(await webUpload(t, b, bytes, filename));
  await stagedBatch(t, id);
  return id;
}
