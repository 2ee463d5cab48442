import type { SubmissionInput } from '../../src/domain/submission-input';

let counter = 0;

/** A valid submission; each call gets distinct content unless `overrides` pins it. */
export function makeSubmission(overrides: Partial<SubmissionInput> = {}): SubmissionInput {
  counter += 1;
  return {
    vin: 'WDB1234561A654321',
    nrInm: 'B123ABC',
    dataPrestatie: '2025-03-14',
    odometruFinal: 100_000 + counter,
    prestatii: [{ cod_prestatie: 'OE-3' }],
    ...overrides,
  };
}
