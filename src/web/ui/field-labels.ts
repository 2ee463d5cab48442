// Fields as the clerk knows them, never as the API spells them (`vin`, `dataPrestatie`): the
// correction form's labels and every message that names a field (the content errors listed in
// the panel, the form's own refusals) take their words from here.

export const FIELD_LABEL: Record<string, string> = {
  vin: 'Seria de șasiu (VIN)',
  nrInm: 'Nr. de înmatriculare',
  dataPrestatie: 'Data prestației',
  odometruInitial: 'Odometru inițial (km)',
  odometruFinal: 'Odometru final (km)',
  prestatii: 'Operații',
  b64Image: 'Fotografia',
};

/** `prestatii.2` is the third operation; an unknown field keeps its name rather than vanish. */
export function fieldLabel(field: string): string {
  const [base, index] = field.split('.');
  if (base === 'prestatii' && index !== undefined && /^\d+$/.test(index)) return `Operația ${Number(index) + 1}`;
  return FIELD_LABEL[base ?? field] ?? field;
}

// Only names written in camelCase or as the API's own keys: `vin` alone is also a Romanian word.
const NAME_IN_TEXT = /\b(nrInm|dataPrestatie|odometruInitial|odometruFinal|b64Image|prestatii)\b/g;

/** A message of the catalog (or the registry's) with the field names in it replaced by their labels. */
export function withFieldLabels(text: string): string {
  return text.replace(NAME_IN_TEXT, (name) => `„${FIELD_LABEL[name]}”`);
}
