import { CHOSEN_CODE_PAGES } from '../../readers/code-pages';
import type { DbfInfo } from '../../readers/types';
import type { LoadedBatch, Sample } from '../../services/import';
import { countOf } from '../ui/format';

/** A value outside ASCII (a letter with a diacritic, or what a wrong code page made of one). */
const NON_ASCII = /[^ -~\t\r\n]/;

/** Up to five texts of the first rows that hold a letter outside ASCII: what the clerk judges the code page on. */
function textsWithDiacritics(samples: Sample[][]): string[] {
  const seen = new Set<string>();
  for (const column of samples) {
    for (const s of column) {
      if (NON_ASCII.test(s.inFile) && seen.size < 5) seen.add(s.inFile);
    }
  }
  return [...seen];
}

function codePageSource(dbf: DbfInfo): string {
  if (dbf.codePageFrom === 'ales') return 'aleasă de dumneavoastră la încărcare';
  if (dbf.codePageFrom === 'antet') return `din antetul tabelei (octetul de limbă 0x${dbf.languageDriver.toString(16).padStart(2, '0').toUpperCase()})`;
  return 'antetul tabelei nu o numește: aleasă după textul ei (cea care citește cele mai multe litere românești)';
}

/** A code page select: the header's by default, then the Romanian ones first. */
export function CodePageSelect({ id, selected }: { id: string; selected?: number }) {
  return (
    <select name="codepage" id={id}>
      <option value="" selected={selected === undefined}>
        Cea din antetul tabelei
      </option>
      {CHOSEN_CODE_PAGES.map((c) => (
        <option value={String(c.codePage)} selected={selected === c.codePage}>
          {c.label}
        </option>
      ))}
    </select>
  );
}

/**
 * Another reading of the same table: the file is chosen again with another code page (a new
 * upload, its own batch), and the upload opens the new batch's screen.
 */
function ReadAgain({ dbf }: { dbf: DbfInfo }) {
  const other = CHOSEN_CODE_PAGES.find((c) => c.codePage !== dbf.codePage)?.codePage;
  return (
    <form
      class="read-again"
      method="post"
      action="/_import/incarca"
      enctype="multipart/form-data"
      hx-post="/_import/incarca"
      hx-target="#citire-stare"
      hx-swap="innerHTML"
      hx-disable="findAll button"
    >
      <p>
        <strong>Diacriticele nu arată ca în program?</strong> Alegeți pagina de cod și tabela din nou; importul acesta rămâne neconfirmat.
      </p>
      <label for="citire-codare">Pagina de cod</label>
      <CodePageSelect id="citire-codare" selected={other} />
      <label for="citire-fisier">Tabela (.dbf, sau arhiva zip cu .dbf și .fpt / .dbt)</label>
      <input type="file" name="file" id="citire-fisier" required accept=".dbf,.zip" />
      <button type="submit">Citește din nou</button>
      <div id="citire-stare" aria-live="polite"></div>
    </form>
  );
}

/** "Cum am citit fișierul": for a .dbf table, its format, code page and where it came from, the records left out, the memo; for a csv, its encoding and separator. */
export function ReadAs({ batch, samples }: { batch: LoadedBatch; samples: Sample[][] }) {
  const { fileMeta } = batch;
  if (fileMeta.kind === 'csv') {
    const separator = fileMeta.delimiter === '\t' ? 'tab' : `„${fileMeta.delimiter ?? ';'}”`;
    return (
      <p class="muted small read-as">
        Citit ca CSV, codare {fileMeta.encoding ?? 'utf-8'}, separator {separator}.
      </p>
    );
  }
  const dbf = fileMeta.dbf;
  if (fileMeta.kind !== 'dbf' || !dbf) return null;
  const texts = textsWithDiacritics(samples);
  return (
    <details class="read-as" open aria-labelledby="citire-titlu">
      <summary id="citire-titlu">Cum am citit tabela</summary>
      <dl class="facts">
        <dt>Tabelă</dt>
        <dd>{dbf.format}</dd>
        <dt>Pagina de cod</dt>
        <dd>
          <strong>{dbf.codePageLabel}</strong>, {codePageSource(dbf)}
        </dd>
        <dt>Înregistrări</dt>
        <dd>
          {countOf(dbf.records, 'o înregistrare', 'înregistrări')} în tabelă
          {dbf.deleted > 0 ? `; ${countOf(dbf.deleted, 'una ștearsă (DELETE), lăsată deoparte', 'șterse (DELETE), lăsate deoparte')}` : '; niciuna ștearsă'}
        </dd>
        <dt>Memo</dt>
        <dd>{dbf.memo ? `citite din fișierul .${dbf.memo}` : 'fără câmpuri memo'}</dd>
        {dbf.skippedFields.length > 0 ? (
          <>
            <dt>Câmpuri necitite</dt>
            <dd>{dbf.skippedFields.join(', ')} (binare, imagini sau OLE: fără text)</dd>
          </>
        ) : null}
      </dl>
      {texts.length > 0 ? (
        <div class="read-texts">
          <p>Textul cu diacritice, așa cum l-am citit:</p>
          <ul lang="ro">
            {texts.map((t) => (
              <li class="mono">{t}</li>
            ))}
          </ul>
        </div>
      ) : (
        <p class="muted small">Primele rânduri nu au litere cu diacritice: pagina de cod nu schimbă nimic în ele.</p>
      )}
      {batch.status === 'committed' ? null : <ReadAgain dbf={dbf} />}
    </details>
  );
}
