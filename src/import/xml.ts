import { AppError } from '../errors';
import type { Readable } from 'node:stream';
import { SaxesParser, type SaxesTagPlain } from 'saxes';

export interface XmlHandlers {
  open(name: string, attributes: Record<string, string>): void;
  text(text: string): void;
  close(name: string): void;
}

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
