import { contentError, type ContentError } from '../errors';
import { canonicalize, type CanonicalContent } from './canonical';
import { resolvePrestatii, type ResolutionContext, type ResolvedItem, type RuleHit } from './resolve';
import type { SubmissionInput } from './submission-input';
import { validateContent } from './validate';

export type Verdict = 'queued' | 'needs_data' | 'needs_mapping' | 'error';

export interface Classification {
  status: Verdict;
  content: CanonicalContent;
  prestatii: ResolvedItem[];
  erori: ContentError[];
  nemapate: string[];
  motiv: string | null;
  ruleHits: RuleHit[];
}

function summary(erori: ContentError[]): string {
  const fields = [...new Set(erori.map((e) => e.field.split('.')[0]))];
  return `Date invalide (${fields.join(', ')}): ${erori[0]?.problema ?? ''}`.trim();
}

/**
 * The one classification routine: POST /v1/prezentari, the dry run, the import preview and
 * commit, and the re-resolution after a mapping is saved all call it, so they cannot diverge.
 * `rejectUnmapped` is the request's `on_unmapped_error`, already defaulted from the account.
 */
export interface ClassifyOptions {
  rejectUnmapped: boolean;
  now: Date;
  /** Problems found before the content was read (a file cell that cannot be stored). */
  found?: readonly ContentError[];
}

export function classify(input: Omit<SubmissionInput, 'reg_credentials' | 'on_unmapped_error'>, ctx: ResolutionContext, options: ClassifyOptions): Classification {
  const content = canonicalize(input);
  return classifyContent(content, ctx, options);
}

export function classifyContent(content: CanonicalContent, ctx: ResolutionContext, options: ClassifyOptions): Classification {
  const { prestatii, nemapate, ruleHits } = resolvePrestatii(content.prestatii, ctx);
  const validated = validateContent(
    content,
    options.now,
    prestatii.map((p) => p.cod_prestatie),
  );
  const erori = options.found?.length ? [...options.found, ...validated] : validated;
  // One object literal, not a spread of a shared base: this runs for every row of an import.
  const verdict = (status: Verdict, found: ContentError[], motiv: string | null): Classification => ({ status, content, prestatii, erori: found, nemapate, motiv, ruleHits });

  if (nemapate.length > 0 && options.rejectUnmapped) {
    const unmapped = contentError('COD_NEMAPAT', 'prestatii', `Coduri fără mapare: ${nemapate.join(', ')}.`);
    return verdict('error', [unmapped, ...erori], `Respins: ${nemapate.length} cod(uri) fără mapare (${nemapate.join(', ')}).`);
  }
  if (erori.length > 0) return verdict('needs_data', erori, summary(erori));
  if (nemapate.length > 0) return verdict('needs_mapping', erori, `Așteaptă maparea codurilor: ${nemapate.join(', ')}.`);
  return verdict('queued', erori, null);
}
