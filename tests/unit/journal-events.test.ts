import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/journal';
import { JOURNAL_EVENTS } from '../../src/journal/events';
import { eventLabel } from '../../src/web/jurnal/labels';

// The journal's events are one catalog: what the code writes is in it, and the Jurnal names each in words.

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => join(ROOT, dir, f));
}

describe('the journal event catalog', () => {
  it('holds every event name the server and the worker write', () => {
    const written = new Set<string>();
    for (const file of [...sources('src'), ...sources('worker')]) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bevent: (?:[^'\n]*\? )?'([a-z_]+)'(?: : '([a-z_]+)')?/g)) for (const name of m.slice(1)) if (name) written.add(name);
      for (const m of text.matchAll(/\bjournal\('([a-z_]+)'/g)) written.add(m[1]!);
    }
    expect(written.size).toBeGreaterThan(40);
    expect([...written].filter((name) => !(name in JOURNAL_EVENTS))).toEqual([]);
  });

  it('gives every event of the catalog its words in the Jurnal', () => {
    for (const name of Object.keys(JOURNAL_EVENTS)) expect(eventLabel(name), name).not.toBe(name);
    expect(eventLabel('worker_database_back')).toBe('baza de date disponibilă din nou');
    // A name of an older journal, no longer written, still shows as itself.
    expect(eventLabel('un_eveniment_vechi')).toBe('un_eveniment_vechi');
  });

  it('is what journal.write accepts (the compiler checks it: npm run typecheck)', () => {
    const written: string[] = [];
    const journal: Pick<Journal, 'write'> = { write: (e) => written.push(e.event) };
    journal.write({ event: 'mapare_salvata' });
    // @ts-expect-error a name outside the catalog does not compile
    journal.write({ event: 'mapare_salvată' });
    expect(written).toEqual(['mapare_salvata', 'mapare_salvată']);
  });
});
