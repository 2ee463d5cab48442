/**
 * A Romanian fiscal code (CUI/CIF): 2 to 10 digits, the last a check digit, optionally after
 * `RO` (the VAT form of the same code). The check digit is ANAF's: the other digits, padded on
 * the left to nine, weighted by 7 5 3 2 1 7 5 3 2; ten times their sum modulo 11, with 10 read
 * as 0. Pure: the sign-up's form and any future API read it here.
 */
const WEIGHTS = [7, 5, 3, 2, 1, 7, 5, 3, 2];

export type CuiReading = { ok: true; cui: string } | { ok: false; problem: string };

/** The CUI's digits (no `RO`, no leading zeros), or why the text is not one. */
export function readCui(text: string): CuiReading {
  const compact = text.replace(/[\s.]/g, '').toUpperCase();
  const digits = compact.startsWith('RO') ? compact.slice(2) : compact;
  if (!/^\d+$/.test(digits)) return { ok: false, problem: 'CUI-ul are doar cifre, eventual după „RO” (ex. RO18547290).' };
  const cui = digits.replace(/^0+/, '');
  if (cui.length < 2 || cui.length > 10) return { ok: false, problem: 'CUI-ul are între 2 și 10 cifre.' };
  if (checkDigit(cui.slice(0, -1)) !== Number(cui.at(-1))) {
    return { ok: false, problem: 'Cifra de control a CUI-ului nu se potrivește: verificați că ați copiat codul întreg, fără greșeli.' };
  }
  return { ok: true, cui };
}

/** The check digit that completes `body` (the CUI without its last digit, at most nine digits). */
export function checkDigit(body: string): number {
  const padded = body.padStart(9, '0');
  const sum = [...padded].reduce((total, digit, i) => total + Number(digit) * (WEIGHTS[i] ?? 0), 0);
  const digit = (sum * 10) % 11;
  return digit === 10 ? 0 : digit;
}
