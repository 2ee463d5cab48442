import type { CanonicalItem } from './canonical';
import { normalizeText } from './text';

export interface TextRule {
  id: number;
  pattern: string;
  cod_prestatie: string;
  priority: number;
}

/** What resolution needs to know, loaded once per account (services/operations/context.ts). */
export interface ResolutionContext {
  /** Registry code → its name. */
  nomenclator: ReadonlyMap<string, string>;
  /** The account's `cod_op_service` → registry code. */
  mappings: ReadonlyMap<string, string>;
  /** The account's text rules, in priority order. */
  textRules: readonly TextRule[];
}

export interface ResolvedItem {
  cod_prestatie: string;
  denumire: string;
  /** The code or name the client sent. */
  cod_client: string;
  sursa: 'nomenclator' | 'mapare' | 'regula_text';
}

export interface RuleHit {
  rule_id: number;
  cod_client: string;
  cod_prestatie: string;
}

export interface Resolution {
  prestatii: ResolvedItem[];
  nemapate: string[];
  ruleHits: RuleHit[];
}

interface PreparedRules {
  /** The text rules in priority order, each pattern normalised once. */
  rules: Array<{ rule: TextRule; normalizedPattern: string }>;
  /** normalizeText, remembered: a batch repeats the same few operation names on every row. */
  normalized: (text: string) => string;
}

// Keyed on the context's rules (loaded once per request or import batch, never changed), so
// a batch's rows share the work, dropped with the context.
const preparedRules = new WeakMap<readonly TextRule[], PreparedRules>();
const MAX_REMEMBERED_NAMES = 10_000;

function prepared(ctx: ResolutionContext): PreparedRules {
  let found = preparedRules.get(ctx.textRules);
  if (!found) {
    const rules = [...ctx.textRules].sort((a, b) => a.priority - b.priority || a.id - b.id).map((rule) => ({ rule, normalizedPattern: normalizeText(rule.pattern) }));
    const names = new Map<string, string>();
    const normalized = (text: string) => {
      let name = names.get(text);
      if (name === undefined) {
        if (names.size >= MAX_REMEMBERED_NAMES) names.clear();
        name = normalizeText(text);
        names.set(text, name);
      }
      return name;
    };
    found = { rules, normalized };
    preparedRules.set(ctx.textRules, found);
  }
  return found;
}

/**
 * Strict precedence: a `cod_prestatie` in the nomenclator; else the account's mapping of
 * the code; else the first text rule (priority order) whose pattern is a substring of the
 * item's name; else unmapped. A `cod_prestatie` outside the nomenclator is treated as
 * the workshop's own code.
 */
export function resolvePrestatii(items: readonly CanonicalItem[], ctx: ResolutionContext): Resolution {
  const prestatii: ResolvedItem[] = [];
  const nemapate: string[] = [];
  const ruleHits: RuleHit[] = [];
  const { rules, normalized } = prepared(ctx);

  for (const item of items) {
    const code = item.cod_prestatie ?? item.cod_op_service ?? '';
    if (item.cod_prestatie && ctx.nomenclator.has(code)) {
      prestatii.push({ cod_prestatie: code, denumire: ctx.nomenclator.get(code) ?? '', cod_client: code, sursa: 'nomenclator' });
      continue;
    }
    const mapped = ctx.mappings.get(code);
    if (mapped && ctx.nomenclator.has(mapped)) {
      prestatii.push({ cod_prestatie: mapped, denumire: ctx.nomenclator.get(mapped) ?? '', cod_client: code, sursa: 'mapare' });
      continue;
    }
    const name = normalized(item.denumire);
    const rule = name ? rules.find((r) => ctx.nomenclator.has(r.rule.cod_prestatie) && textRuleMatches(name, r.normalizedPattern))?.rule : undefined;
    if (rule) {
      prestatii.push({ cod_prestatie: rule.cod_prestatie, denumire: ctx.nomenclator.get(rule.cod_prestatie) ?? '', cod_client: code, sursa: 'regula_text' });
      ruleHits.push({ rule_id: rule.id, cod_client: code, cod_prestatie: rule.cod_prestatie });
      continue;
    }
    if (code && !nemapate.includes(code)) nemapate.push(code);
  }
  return { prestatii, nemapate, ruleHits };
}

/** Whether a text rule's pattern matches an operation's name, both normalised (normalizeText): a substring. */
export function textRuleMatches(normalizedName: string, normalizedPattern: string): boolean {
  return normalizedPattern.length > 0 && normalizedName.includes(normalizedPattern);
}
