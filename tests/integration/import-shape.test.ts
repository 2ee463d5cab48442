import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { HEADER, upload, xlsxFile } from '../helpers/import-files';
import { settled } from '../helpers/import-flow';

// The import's answers, key by key and in order: the services return records and
// routes/import/present.ts writes them, so a renamed or reordered field shows here.

let t: TestApp;
let key: string;

type Json = Record<string, unknown>;
const obj = (v: unknown) => v as Json;
const list = (v: unknown) => v as Json[];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAPPING_KEYS = ['batch_id', 'header', 'header_signature', 'column_mapping', 'mapping_source', 'drift', 'observatii', 'missing_fields', 'fields'];
const BATCH_KEYS = [...MAPPING_KEYS, 'status', 'filename', 'file', 'sheets', 'row_count', 'created_at', 'committed_at', 'purge_after'];
const ROW_KEYS = [
  'row_index',
  'sheet',
  'line',
  'state',
  'values',
  'prestatii',
  'erori',
  'nemapate',
  'motiv',
  'overridden_fields',
  'review',
  'duplicate_of',
  'existing_submission',
  'submission_id',
  'vizita',
];

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
  await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'OP-1', cod_prestatie: 'OE-3' } });
});
afterAll(() => t.close());

describe('the import answers', () => {
  it('upload, batch, column mapping, preview, row edit, review and commit keep their fields', async () => {
    const file = await xlsxFile({
      Date: [HEADER, ['WDB1234561A000001', 'B1ABC', '14.03.2025', null, 1000, 'OP-1', 'Revizie'], ['WDB1234561A000002', 'B2ABC', '14.03.2025', null, 2000, 'OP-9', 'Schimb ulei']],
    });
    const uploaded = await upload(t, key, file);
    expect(uploaded.status).toBe(201);
    const batch = await json(uploaded);
    expect(Object.keys(batch)).toEqual(BATCH_KEYS);
    expect(batch).toMatchObject({ status: 'staged', filename: 'prestatii.xlsx', row_count: 2, committed_at: null, file: { kind: 'xlsx', encoding: null, delimiter: null } });
    expect(Object.keys(obj(batch.file))).toEqual(['kind', 'encoding', 'delimiter', 'size']);
    expect(batch.created_at).toMatch(ISO);
    expect(batch.purge_after).toMatch(ISO);
    const id = batch.batch_id as number;
    expect(await settled(t, key, id)).toEqual(batch);

    const mapping = await json(await t.call('GET', `/v1/import/${id}/column-mapping`, { key }));
    expect(Object.keys(mapping)).toEqual(MAPPING_KEYS);
    const saved = await json(await t.call('POST', `/v1/import/${id}/column-mapping`, { key, body: { column_mapping: { denumire_op: 6 } } }));
    expect(Object.keys(saved)).toEqual(MAPPING_KEYS);
    expect(saved).toMatchObject({ mapping_source: 'saved', column_mapping: mapping.column_mapping });

    const preview = await json(await t.call('GET', `/v1/import/${id}/preview`, { key }));
    expect(Object.keys(preview)).toEqual([
      'batch_id',
      'status',
      'total_rows',
      'counts',
      'n_to_commit',
      'n_records',
      'rows_hash',
      'column_mapping',
      'missing_fields',
      'operations_to_map',
      'page',
      'page_size',
      'pages',
      'rows',
    ]);
    const operations = list(preview.operations_to_map);
    expect(operations).toHaveLength(1);
    expect(Object.keys(operations[0]!)).toEqual(['cod_op_service', 'denumire', 'rows', 'sugestie']);
    expect(operations[0]).toMatchObject({ cod_op_service: 'OP-9', denumire: 'Schimb ulei', rows: 1 });
    expect(Object.keys(list(preview.rows)[0]!)).toEqual(ROW_KEYS);
    expect(list(preview.rows).map((r) => r.state)).toEqual(['ok', 'needs_mapping']);

    const edited = await json(await t.call('POST', `/v1/import/${id}/rand/1/editeaza`, { key, body: { nrInm: 'B9ABC' } }));
    expect(Object.keys(edited)).toEqual(['row', 'counts', 'n_to_commit', 'n_records', 'rows_hash']);
    expect(Object.keys(obj(edited.row))).toEqual(ROW_KEYS);
    expect(edited.row).toMatchObject({ row_index: 1, values: { nrInm: 'B9ABC' }, overridden_fields: ['nrInm'] });
    const reviewed = await json(await t.call('POST', `/v1/import/${id}/rand/1/revizuire`, { key, body: { include: true } }));
    expect(Object.keys(reviewed)).toEqual(['row', 'counts', 'n_to_commit', 'n_records', 'rows_hash']);

    const committed = await t.call('POST', `/v1/import/${id}/commit`, { key, body: { n_confirmed: reviewed.n_to_commit, rows_hash: reviewed.rows_hash } });
    expect(committed.status).toBe(200);
    const result = await json(committed);
    expect(Object.keys(result)).toEqual(['batch_id', 'status', 'inserted', 'by_status', 'skipped_conflict', 'not_committed', 'counts', 'attestation']);
    expect(result).toMatchObject({ batch_id: id, status: 'committed', inserted: 1, by_status: { queued: 1, needs_data: 0 }, skipped_conflict: 0, not_committed: 1 });
    expect(Object.keys(obj(result.attestation))).toEqual(['rows_hash', 'n_confirmed', 'confirmed_by', 'created_at']);
    expect(result.attestation).toMatchObject({ rows_hash: reviewed.rows_hash, n_confirmed: 1 });
    expect(obj(result.attestation).created_at).toMatch(ISO);

    const after = await json(await t.call('GET', `/v1/import/${id}`, { key }));
    expect(after).toMatchObject({ status: 'committed' });
    expect(after.committed_at).toMatch(ISO);
  });
});
