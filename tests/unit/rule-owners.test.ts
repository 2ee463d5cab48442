import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMPORT_FIELDS } from '../../src/domain/import-header';
import { REGISTRY_TOKEN_TTL_S } from '../../src/domain/registry-token';
import { ColumnMappingBody, RowEditBody } from '../../src/routes/import/schemas';

// Each rule has one owner in the code (README, "Where each rule lives"): a second copy is the
// start of two rules that drift apart.

const ROOT = join(import.meta.dirname, '..', '..');
const files = ['src', 'worker', 'db']
  .flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(ROOT, dir, f)))
  .filter((f) => /\.tsx?$/.test(f) && !f.includes('/migrations/'));
const holding = (pattern: RegExp) => files.filter((f) => pattern.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));

describe('one owner for each rule', () => {
  it("the registry token's life: src/domain/registry-token.ts", () => {
    expect(REGISTRY_TOKEN_TTL_S).toBe(108_000);
    expect(holding(/108_?000|30 \* (60 \* 60|3_?600)|'30 hours'|\b30 de ore\b|30-hour/)).toEqual([]);
    expect(holding(/REGISTRY_TOKEN_HOURS = /)).toEqual(['src/domain/registry-token.ts']);
  });

  it('the API-key lookup: src/services/accounts/key-check.ts', () => {
    expect(holding(/apiKeys\.keyHash,/)).toEqual(['src/services/accounts/key-check.ts']);
  });

  it("the import's fields: IMPORT_FIELDS, which the strict bodies are built from", () => {
    expect(Object.keys(ColumnMappingBody.shape.column_mapping.shape)).toEqual([...IMPORT_FIELDS]);
    expect(Object.keys((RowEditBody as unknown as { shape: object }).shape ?? {})).toEqual([...IMPORT_FIELDS]);
    expect(holding(/odometruInitial: (ColumnRef|FieldValue)/)).toEqual([]);
  });

  it("the dashboard's paths: read off its routes (src/web/index.tsx), no list", () => {
    expect(holding(/SIGNED_IN_PATHS|'\/mapari\/\*'/)).toEqual([]);
  });

  it("an upload's acceptance: queueUpload, its form read by readUploadForm, for the API and the dashboard alike", () => {
    expect(holding(/await queueUpload\(\{/)).toEqual(['src/routes/import/index.ts', 'src/web/import/upload-routes.tsx']);
    expect(holding(/= readUploadForm\(parts/)).toEqual(['src/routes/import/index.ts', 'src/web/import/upload-routes.tsx']);
    expect(holding(/\bchosenCodePage\(/)).toEqual(['src/readers/code-pages.ts', 'src/services/import/upload-form.ts']);
    expect(holding(/\bCHUNK_ROWS = /)).toEqual(['src/services/import/row-writer.ts']);
  });
});
