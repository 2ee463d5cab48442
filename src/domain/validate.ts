import { contentError, type ContentError } from '../errors';
import type { CanonicalContent } from './canonical';
import { isIsoDate, todayInBucharest } from './dates';
import { odometerText } from './import-cells';

export const EARLIEST_DATE = '2024-12-01';
export const ODOMETER_CODES = new Set(['R-ODO', 'I-ODO']);
const VIN = /^[A-HJ-NPR-Z0-9]{17}$/;
const PLATE = /^[A-Z0-9]{1,10}$/;

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/**
 * Standard base64 with its padding. A search for the first character outside the alphabet
 * (V8's native matcher; no backtracking, so no stack to overflow as the anchored pattern did
 * at about 4.5 million characters), then `=` only in the padding: a photo of 14 MB checked in
 * a JavaScript loop held the event loop about 100 ms, searched about 10.
 */
export function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  if (NOT_BASE64.test(text)) return false;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const firstPad = text.indexOf('=');
  return firstPad === -1 || firstPad === text.length - padding;
}

/**
 * The decoded size of a base64 text, in bytes: three per four characters, less the padding
 * (`=` stands for no byte; counting it made a photo of exactly the limit a 413).
 */
export function base64Bytes(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.floor((text.length * 3) / 4) - padding;
}

function describe(value: unknown): string {
  const text = String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * An odometer is whole kilometres: a fraction (`87,4` typed, 87.4 sent) is refused with its
 * reason, never rounded, since the registry keeps what it is sent for good.
 */
export function odometerError(value: number | string | null, field: 'odometruFinal' | 'odometruInitial'): ContentError | null {
  if (value === null) return contentError('ODOMETRU_INVALID', field, `Câmpul ${field} lipsește.`);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    return contentError('ODOMETRU_INVALID', field, `„${describe(value)}” nu este un număr pozitiv.`);
  }
  if (!Number.isInteger(value)) {
    return contentError('ODOMETRU_ZECIMAL', field, `${odometerText(value)} are zecimale; un odometru se scrie în kilometri întregi.`);
  }
  return null;
}

/**
 * Every content rule of the spec; an empty list means the content is valid. `resolvedCodes`
 * are the registry codes the items resolved to: a workshop code mapped to R-ODO needs
 * odometruInitial just as a direct R-ODO does.
 */
export function validateContent(content: CanonicalContent, now: Date, resolvedCodes: readonly string[] = []): ContentError[] {
  const erori: ContentError[] = [];
  const { vin, nrInm, dataPrestatie, odometruInitial, odometruFinal, prestatii, b64Image } = content;

  if (!VIN.test(vin)) {
    const cauza =
      vin.length !== 17
        ? `Are ${vin.length} caractere în loc de 17.`
        : /[OIQ]/.test(vin)
          ? 'Conține una dintre literele O, I sau Q, care nu apar în VIN.'
          : 'Conține caractere care nu sunt litere sau cifre.';
    erori.push(contentError('VIN_INVALID', 'vin', cauza));
  }
  if (!PLATE.test(nrInm)) {
    const cauza =
      nrInm.length === 0
        ? 'Câmpul este gol.'
        : nrInm.length > 10
          ? `Are ${nrInm.length} caractere; maximum 10.`
          : `„${describe(nrInm)}” conține alte caractere decât litere și cifre.`;
    erori.push(contentError('NRINM_INVALID', 'nrInm', cauza));
  }
  if (!isIsoDate(dataPrestatie)) {
    erori.push(contentError('DATA_INVALIDA', 'dataPrestatie', `„${describe(dataPrestatie)}” nu este o dată AAAA-LL-ZZ.`));
  } else if (dataPrestatie < EARLIEST_DATE) {
    erori.push(contentError('DATA_PREA_VECHE', 'dataPrestatie', `${dataPrestatie} este înainte de ${EARLIEST_DATE}.`));
  } else if (dataPrestatie > todayInBucharest(now)) {
    erori.push(contentError('DATA_IN_VIITOR', 'dataPrestatie', `${dataPrestatie} este după data de azi (${todayInBucharest(now)}).`));
  }

  const finalError = odometerError(odometruFinal, 'odometruFinal');
  if (finalError) erori.push(finalError);
  // Two scans rather than a concatenated copy: this runs for every row of an import.
  const needsInitial = resolvedCodes.some((c) => ODOMETER_CODES.has(c)) || prestatii.some((p) => ODOMETER_CODES.has(p.cod_prestatie ?? ''));
  if (odometruInitial === null) {
    if (needsInitial) erori.push(contentError('ODOMETRU_INITIAL_LIPSA', 'odometruInitial', 'Prestațiile includ R-ODO sau I-ODO.'));
  } else {
    const initialError = odometerError(odometruInitial, 'odometruInitial');
    if (initialError) erori.push(initialError);
    else if (!finalError && (odometruInitial as number) > (odometruFinal as number)) {
      erori.push(contentError('ODOMETRU_INVERSAT', 'odometruInitial', `${odometruInitial} > ${odometruFinal}.`));
    }
  }

  if (prestatii.length === 0) erori.push(contentError('PRESTATII_GOALE', 'prestatii', 'Nu a fost trimisă nicio prestație.'));
  prestatii.forEach((p, i) => {
    if (!p.cod_prestatie && !p.cod_op_service) {
      erori.push(contentError('PRESTATII_GOALE', `prestatii.${i}`, 'Codul operației este gol.'));
    }
  });

  if (!isBase64(b64Image)) {
    const cauza = b64Image.startsWith('data:') ? 'Începe cu un prefix „data:…;base64,”.' : 'Conține caractere în afara alfabetului base64 sau are lungimea greșită.';
    erori.push(contentError('IMAGINE_INVALIDA', 'b64Image', cauza));
  }
  return erori;
}
