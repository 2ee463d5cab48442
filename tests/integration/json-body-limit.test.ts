import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBodyLimit } from '../../src/config';
import { MAX_PRESTATII, maxSubmissionJsonBytes, TEXT_MAX } from '../../src/domain/submission-input';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';

// Issue 32: the JSON body limit is the longest body a submission needs, derived from the photo
// limit and the fields' bounds, so that a longer one is refused (413) before it is parsed.
let t: TestApp;
let key: string;
const IMAGE = 300_000;

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_MAX_IMAGE_BYTES: String(IMAGE) });
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

/** A photo of exactly `bytes` bytes, in base64. */
const photo = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('the JSON body limit follows GATEWAY_MAX_IMAGE_BYTES', () => {
  it('is derived when GATEWAY_MAX_JSON_BYTES is unset, and the setting still overrides it', () => {
    expect(jsonBodyLimit({ GATEWAY_MAX_IMAGE_BYTES: IMAGE, GATEWAY_MAX_JSON_BYTES: undefined })).toBe(maxSubmissionJsonBytes(IMAGE));
    expect(jsonBodyLimit({ GATEWAY_MAX_IMAGE_BYTES: IMAGE, GATEWAY_MAX_JSON_BYTES: 5 })).toBe(5);
    // The default photo (10 MiB) gives about 14.1 MiB.
    expect(maxSubmissionJsonBytes(10 * 1024 * 1024) / 2 ** 20).toBeCloseTo(14.13, 1);
  });

  it('the longest submission the API takes fits: the largest photo and every other field at its longest, each character escaped', () => {
    const escaped = (n: number) => '\u0001'.repeat(n);
    const body = JSON.stringify({
      ...makeSubmission({ b64Image: photo(IMAGE) }),
      vin: escaped(TEXT_MAX.vin),
      nrInm: escaped(TEXT_MAX.nrInm),
      dataPrestatie: escaped(TEXT_MAX.dataPrestatie),
      odometruInitial: escaped(TEXT_MAX.odometer),
      odometruFinal: escaped(TEXT_MAX.odometer),
      prestatii: Array.from({ length: MAX_PRESTATII }, () => ({ cod_prestatie: escaped(TEXT_MAX.code), cod_op_service: escaped(TEXT_MAX.code), denumire: escaped(TEXT_MAX.name) })),
      reg_credentials: { username: escaped(200), password: escaped(500) },
    });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(maxSubmissionJsonBytes(IMAGE));
  });

  it('a dry run and a submission with the largest photo are taken; a body past the derived limit is a 413 PREA_MARE, nothing stored', async () => {
    const ok = await t.call('POST', '/v1/prezentari/valideaza', { key, body: makeSubmission({ b64Image: photo(IMAGE) }) });
    expect(ok.status).toBe(200);
    const limit = maxSubmissionJsonBytes(IMAGE);
    for (const path of ['/v1/prezentari/valideaza', '/v1/prezentari']) {
      const res = await t.call('POST', path, { key, body: makeSubmission({ b64Image: 'A'.repeat(limit) }) });
      expect(res.status).toBe(413);
      expect(await json(res)).toMatchObject({ cod: 'PREA_MARE', cauza: `Corpul cererii depășește ${limit} octeți.` });
    }
    expect(Number((await t.ctx.sql`SELECT count(*)::int AS n FROM submissions`)[0]!.n)).toBe(0);
  });
});
