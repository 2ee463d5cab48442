// The code pages of xBase tables (dbf.ts): the DOS ones a Romanian workshop's FoxPro or Clipper
// program wrote, and the Windows ones. A table names its code page by a language driver byte
// (the header's byte 29); a clerk may name another when the header is wrong.

/** The upper halves (0x80–0xFF) of the DOS code pages TextDecoder does not know. */
const DOS_UPPER: Record<number, string> = {
  437: 'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»\u2591\u2592\u2593\u2502\u2524\u2561\u2562\u2556\u2555\u2563\u2551\u2557\u255d\u255c\u255b\u2510\u2514\u2534\u252c\u251c\u2500\u253c\u255e\u255f\u255a\u2554\u2569\u2566\u2560\u2550\u256c\u2567\u2568\u2564\u2565\u2559\u2558\u2552\u2553\u256b\u256a\u2518\u250c\u2588\u2584\u258c\u2590\u2580αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²\u25a0\u00a0',
  850: 'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»\u2591\u2592\u2593\u2502\u2524ÁÂÀ©\u2563\u2551\u2557\u255d¢¥\u2510\u2514\u2534\u252c\u251c\u2500\u253cãÃ\u255a\u2554\u2569\u2566\u2560\u2550\u256c¤ðÐÊËÈıÍÎÏ\u2518\u250c\u2588\u2584¦Ì\u2580ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u00ad±\u2017¾¶§÷¸°¨·¹³²\u25a0\u00a0',
  852: 'ÇüéâäůćçłëŐőîŹÄĆÉĹĺôöĽľŚśÖÜŤťŁ×čáíóúĄąŽžĘę¬źČş«»\u2591\u2592\u2593\u2502\u2524ÁÂĚŞ\u2563\u2551\u2557\u255dŻż\u2510\u2514\u2534\u252c\u251c\u2500\u253cĂă\u255a\u2554\u2569\u2566\u2560\u2550\u256c¤đĐĎËďŇÍÎě\u2518\u250c\u2588\u2584ŢŮ\u2580ÓßÔŃńňŠšŔÚŕŰýÝţ´\u00ad˝˛ˇ˘§÷¸°¨˙űŘř\u25a0\u00a0',
};

/** The code pages TextDecoder reads (WHATWG names). */
const DECODER_NAME: Record<number, string> = {
  1250: 'windows-1250',
  1251: 'windows-1251',
  1252: 'windows-1252',
  1253: 'windows-1253',
  1254: 'windows-1254',
  1255: 'windows-1255',
  1256: 'windows-1256',
  1257: 'windows-1257',
  866: 'ibm866',
  874: 'windows-874',
  28592: 'iso-8859-2',
  10000: 'macintosh',
  10007: 'x-mac-cyrillic',
  932: 'shift_jis',
  936: 'gbk',
  949: 'euc-kr',
  950: 'big5',
};

const MULTI_BYTE = new Set([932, 936, 949, 950]);

/**
 * Language driver byte → code page, as Visual FoxPro and dBase IV write it (0 names none).
 * The 852 ones are Eastern European DOS: Czech, Hungarian, Polish, Romanian, Slovenian.
 */
export const LANGUAGE_DRIVERS: Record<number, number> = {
  1: 437,
  2: 850,
  3: 1252,
  4: 10000,
  8: 865,
  9: 437,
  10: 850,
  11: 437,
  13: 437,
  14: 850,
  15: 437,
  16: 850,
  17: 437,
  18: 850,
  19: 932,
  20: 850,
  21: 437,
  22: 850,
  23: 865,
  24: 437,
  25: 437,
  26: 850,
  27: 437,
  28: 863,
  29: 850,
  31: 852,
  34: 852,
  35: 852,
  36: 860,
  37: 850,
  38: 866,
  55: 850,
  64: 852,
  77: 936,
  78: 949,
  79: 950,
  80: 874,
  87: 1252,
  88: 1252,
  89: 1252,
  100: 852,
  101: 866,
  102: 865,
  103: 861,
  106: 737,
  107: 857,
  120: 950,
  121: 949,
  122: 936,
  123: 932,
  124: 874,
  125: 1255,
  126: 1256,
  135: 852,
  136: 857,
  150: 10007,
  151: 10029,
  152: 10006,
  200: 1250,
  201: 1251,
  202: 1254,
  203: 1253,
  204: 1257,
};

/** The code pages a clerk chooses from (the import screen, `codepage` of POST /v1/import), the Romanian ones first. */
export const CHOSEN_CODE_PAGES: ReadonlyArray<{ codePage: number; label: string }> = [
  { codePage: 1250, label: 'Windows-1250 (Europa Centrală, FoxPro pentru Windows)' },
  { codePage: 852, label: 'DOS 852 (Europa Centrală, FoxPro / Clipper pentru DOS)' },
  { codePage: 437, label: 'DOS 437 (SUA)' },
  { codePage: 850, label: 'DOS 850 (Europa de Vest)' },
  { codePage: 1252, label: 'Windows-1252 (Europa de Vest)' },
  { codePage: 28592, label: 'ISO-8859-2 (Latin-2)' },
  { codePage: 1251, label: 'Windows-1251 (chirilic)' },
  { codePage: 866, label: 'DOS 866 (chirilic)' },
];

/** A code page's name as the screen shows it. */
export function codePageLabel(codePage: number): string {
  return CHOSEN_CODE_PAGES.find((c) => c.codePage === codePage)?.label ?? `pagina de cod ${codePage}`;
}

/** Whether this reader can decode the code page. */
export function canDecode(codePage: number): boolean {
  return codePage in DOS_UPPER || codePage in DECODER_NAME;
}

/** Decodes a field's bytes (start..end of the buffer). */
export type FieldDecoder = (bytes: Buffer, start: number, end: number) => string;

/**
 * A decoder for a code page this reader knows (canDecode). A single-byte page is one table of
 * 256 UTF-16 code units: a field of ASCII only (most of a table: VINs, plates, codes) is one
 * latin1 slice; another is mapped into a scratch buffer of code units and decoded natively
 * (a string built character by character made the reader slower than dbffile's iconv-lite).
 */
export function fieldDecoder(codePage: number): FieldDecoder {
  if (MULTI_BYTE.has(codePage)) {
    const decoder = new TextDecoder(DECODER_NAME[codePage]!);
    return (bytes, start, end) => decoder.decode(bytes.subarray(start, end));
  }
  const upper = DOS_UPPER[codePage] ?? new TextDecoder(DECODER_NAME[codePage]!).decode(Uint8Array.from({ length: 128 }, (_, i) => 0x80 + i));
  const units = new Uint16Array(256);
  for (let b = 0; b < 0x80; b++) units[b] = b;
  [...upper].forEach((ch, i) => {
    units[0x80 + i] = ch.charCodeAt(0);
  });
  const utf16 = new TextDecoder('utf-16le');
  let scratch = new Uint16Array(256);
  return (bytes, start, end) => {
    let i = start;
    while (i < end && bytes[i]! < 0x80) i++;
    if (i === end) return bytes.toString('latin1', start, end);
    if (scratch.length < end - start) scratch = new Uint16Array(end - start);
    for (let j = start; j < end; j++) scratch[j - start] = units[bytes[j]!]!;
    return utf16.decode(scratch.subarray(0, end - start));
  };
}

// The letters of Romanian text, comma- and cedilla-below alike (DOS 852 has only the cedilla ones).
const ROMANIAN = /[ăâîșțşţĂÂÎȘȚŞŢ]/g;

/**
 * The code page of a table whose header names none (byte 29 zero, as dBase III and Clipper
 * leave it): the one of 1250, 852 and 437 that reads the most Romanian letters in the table's
 * text bytes. Without a byte above 0x7F any reads the same, and 1250 is said.
 */
export function judgeCodePage(textBytes: Buffer): number {
  let best = 1250;
  let bestScore = 0;
  for (const codePage of [1250, 852, 437]) {
    const text = fieldDecoder(codePage)(textBytes, 0, textBytes.length);
    const score = text.match(ROMANIAN)?.length ?? 0;
    if (score > bestScore) {
      best = codePage;
      bestScore = score;
    }
  }
  return best;
}

/** A code page as a form or the API names it: '' or absent is the header's; one of CHOSEN_CODE_PAGES, or null when it is none of them. */
export function chosenCodePage(value: string | undefined): number | undefined | null {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  return CHOSEN_CODE_PAGES.find((c) => String(c.codePage) === text)?.codePage ?? null;
}
