import { expect } from 'vitest';
import { json, type TestApp } from './app';
import { upload } from './import-files';

/** Uploads a file and returns its batch id once every row is staged (the upload must succeed). */
export async function stage(t: TestApp, key: string, bytes: Buffer, filename = 'prestatii.xlsx'): Promise<number> {
  const res = await upload(t, key, bytes, filename);
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
  const batchId = (await json(res)).batch_id as number;
  expect((await settled(t, key, batchId)).status).toBe('staged');
  return batchId;
}

/** The batch once its staging ended (the upload answers `queued`; a stager stages it): as GET /v1/import/{id} shows it. */
export async function settled(t: TestApp, key: string, batchId: number): Promise<Record<string, unknown>> {
  for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 20))) {
    const res = await t.call('GET', `/v1/import/${batchId}`, { key });
    expect(res.status).toBe(200);
    const batch = await json(res);
    if (batch.status !== 'staging' && batch.status !== 'queued') return batch;
    if (Date.now() - started > 20_000) throw new Error(`batch ${batchId} still staging`);
  }
}

export interface PreviewRow {
  row_index: number;
  sheet: string;
  line: number;
  state: string;
  values: Record<string, unknown>;
  prestatii: Array<{ cod_prestatie: string; cod_client: string; sursa: string }>;
  erori: Array<{ field: string; message: string; cod: string; problema: string; cauza: string; fix: string }>;
  nemapate: string[];
  motiv: string | null;
  overridden_fields: string[];
  review: { data: string; odometru: number; inclus: boolean } | null;
  duplicate_of: number | null;
  existing_submission: { id: number; status: string } | null;
  submission_id: number | null;
}

export interface Preview {
  batch_id: number;
  status: string;
  total_rows: number;
  counts: Record<string, number>;
  n_to_commit: number;
  rows_hash: string;
  operations_to_map: Array<{ cod_op_service: string; denumire: string; rows: number; sugestie: { cod_prestatie: string; scor: number } | null }>;
  page: number;
  pages: number;
  rows: PreviewRow[];
}

export async function preview(t: TestApp, key: string, batchId: number, query = ''): Promise<Preview> {
  const res = await t.call('GET', `/v1/import/${batchId}/preview${query}`, { key });
  expect(res.status).toBe(200);
  return (await res.json()) as Preview;
}

/** Excel's serial for a date (1900 system), as a real workbook stores it. */
export function serial(isoDate: string): number {
  return (Date.parse(`${isoDate}T00:00:00Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;
}
