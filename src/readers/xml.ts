import { AppError } from '../errors';
import type { Readable } from 'node:stream';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { MAX_CELL_CHARS } from './types';

export interface XmlHandlers {
  open(name: string, attributes: Record<string, string>): void;
  text(text: string): void;
  close(name: string): void;
  /** What the parser is reading, for a refusal (`Celula din foaia „X”, rândul 3, coloana B`). */
  where?(): string;
}

/**
 * The text saxes may gather before it hands it over (it keeps a text node, an attribute value, a
 * CDATA section or a comment whole until it ends): a cell of MAX_CELL_CHARS characters written
 * as character references (`&#x1F600;`) at worst, so that no string of an inflated part grows
 * past it before a handler can refuse it.
 */
const MAX_PENDING_TEXT = 12 * MAX_CELL_CHARS;

/** saxes's text gathered so far: not part of its typed API, read only to bound it. */
const pendingText = (parser: SaxesParser) => (parser as unknown as { text?: string }).text?.length ?? 0;

/** `x:row` and `row` are the same element: some generators prefix the spreadsheet namespace. */
const local = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * Streams one part of the archive through a SAX parser. `setup` gets an `emit` for what it
 * builds (rows, strings); they are yielded chunk by chunk, so a sheet is never held whole.
 */
export async function* parseXml<T>(part: string, stream: Readable, setup: (emit: (item: T) => void) => XmlHandlers): AsyncGenerator<T> {
  const parser = new SaxesParser({ xmlns: false, position: false } as const);
  const pending: T[] = [];
  const handlers = setup((item) => pending.push(item));
  parser.on('opentag', (tag: SaxesTagPlain) => handlers.open(local(tag.name), tag.attributes));
  parser.on('text', (text) => handlers.text(text));
  parser.on('cdata', (text) => handlers.text(text));
  parser.on('closetag', (tag) => handlers.close(local(tag.name)));
  stream.setEncoding('utf8');
  try {
    for await (const chunk of stream) {
      parser.write(chunk as string);
      if (pendingText(parser) > MAX_PENDING_TEXT) {
        const what = handlers.where?.() ?? `Un text din partea ${part}`;
        throw new AppError('IMPORT_CELULA_PREA_LUNGA', `${what} are mai mult de ${MAX_CELL_CHARS.toLocaleString('ro-RO')} de caractere.`);
      }
      yield* pending.splice(0);
    }
    parser.close();
    yield* pending.splice(0);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('IMPORT_FISIER_CORUPT', `Partea ${part} nu este XML valid.`);
  } finally {
    stream.destroy();
  }
}

/** Reads a small part whole (workbook, relationships) into what `setup` collects. */
export async function collectXml<T>(part: string, stream: Readable, setup: (emit: (item: T) => void) => XmlHandlers): Promise<T[]> {
  const items: T[] = [];
  for await (const item of parseXml(part, stream, setup)) items.push(item);
  return items;
}
