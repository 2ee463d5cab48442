import type { SessionUser } from '../../services/users/sessions';
import type { AccountAlerts } from '../../services/accounts/alerts';
import { Layout } from '../layout';
import { Notice } from '../notice';
import { countOf, showInstant } from '../ui/format';
import { Columns } from './columns';
import { Committed, CommitForm } from './commit';
import { Fixes } from './fixes';
import { BATCH_STATUS_LABEL } from './labels';
import { viewQuery, type ScreenData } from './load';
import { PreviewTable, StateChips } from './preview';
import { ReadAs } from './read-as';

/**
 * While the file waits for a stager, then while the rest of it is staged: how many rows are
 * read, polled every second (the answer is this whole screen again, so the staged one replaces
 * it when ready). A failed poll keeps what is shown.
 */
function Progress({ data }: { data: ScreenData }) {
  const { batch, view } = data;
  return (
    <div
      class="progress"
      role="status"
      hx-get={`/_import/${batch.id}${viewQuery(view)}`}
      hx-trigger="every 1s"
      hx-target="#import"
      hx-swap="outerHTML"
      hx-headers='{"X-Poll":"1"}'
      {...{ 'hx-status:4xx': 'swap:none', 'hx-status:5xx': 'swap:none' }}
    >
      {batch.status === 'queued' ? (
        <p>Fișierul a fost primit și așteaptă să fie citit; primele rânduri apar aici în câteva clipe.</p>
      ) : (
        <p>
          Se încarcă fișierul: <strong id="randuri-citite">{countOf(batch.rowCount, 'un rând citit', 'rânduri citite')}</strong> până acum.
        </p>
      )}
      <progress aria-label="Încărcarea fișierului"></progress>
      <p class="muted small">Primele rânduri apar mai jos cât se citește restul; corecturile și confirmarea sunt posibile când tot fișierul este citit.</p>
    </div>
  );
}

function Preview({ data, editable }: { data: ScreenData; editable: boolean }) {
  const { batch, preview, view } = data;
  return (
    <section class="import-part" aria-labelledby="previzualizare-titlu">
      <h2 id="previzualizare-titlu">Rândurile</h2>
      {/* Once committed the rows' states are their submissions' (Followed above): the staging states would all say "Trimis deja". */}
      {data.rowSubmissions ? null : <StateChips batchId={batch.id} preview={preview} view={view} />}
      <PreviewTable batchId={batch.id} preview={preview} view={view} editable={editable} submissions={data.rowSubmissions} />
    </section>
  );
}

interface SheetSummary {
  name: string;
  hidden?: boolean;
  rows?: number;
  staged?: boolean;
  motiv?: string | null;
}

/** A workbook of several sheets: which were read, which not and why; another is chosen by uploading the file again with its name. */
function Sheets({ sheets }: { sheets: unknown }) {
  const list = Array.isArray(sheets) ? (sheets as SheetSummary[]) : [];
  if (list.length < 2) return null;
  return (
    <p class="muted small sheets">
      Foile fișierului:{' '}
      {list
        .map(
          (s) =>
            `„${s.name}”${s.staged ? ` (importată, ${countOf(s.rows ?? 0, 'un rând', 'rânduri')})` : ` (neimportată${s.motiv ? `: ${s.motiv}` : s.hidden ? ': ascunsă' : ''})`}`,
        )
        .join('; ')}
      . Pentru altă foaie, <a href="/#incarca-titlu">încărcați fișierul din nou</a> cu numele ei la „Alt nume de foaie”.
    </p>
  );
}

/** The steps the batch's status allows, in the order a clerk takes them. */
function Steps({ data }: { data: ScreenData }) {
  const { batch, preview, samples } = data;
  if (batch.status === 'failed') {
    const e = batch.error;
    return e ? <Notice kind="error" cod={e.cod} cauza={e.cauza} /> : <Notice kind="error" cod="IMPORT_ESUAT" />;
  }
  if (batch.status === 'queued') return <Progress data={data} />;
  if (batch.status === 'staging') {
    return (
      <>
        <Progress data={data} />
        <Columns batch={batch} samples={samples} editable={false} />
        <Preview data={data} editable={false} />
      </>
    );
  }
  if (batch.status === 'committed') {
    return (
      <>
        <Committed batch={batch} summary={preview.summary} statuses={data.followed ?? {}} />
        <Preview data={data} editable={false} />
      </>
    );
  }
  return (
    <>
      <Columns batch={batch} samples={samples} editable />
      <Fixes batchId={batch.id} operations={preview.operationsToMap} review={data.review} nomenclator={data.nomenclator} heldTotal={preview.summary.counts.needs_review} />
      <Preview data={data} editable />
      <CommitForm batchId={batch.id} summary={preview.summary} />
    </>
  );
}

/** The batch's screen, the fragment every step answers with (and the page's content): one place that re-renders after any change. */
export function ImportScreen({ data }: { data: ScreenData }) {
  const { batch } = data;
  return (
    <section id="import" class="import" aria-labelledby="import-titlu">
      <p class="crumbs">
        <a href="/">« Importuri și trimiteri</a>
      </p>
      <h1 id="import-titlu" tabindex={-1}>
        Import: {batch.filename ?? `fișierul ${batch.id}`}
      </h1>
      <p class="muted">
        Încărcat la {showInstant(batch.createdAt)} · {batch.fileMeta.kind === 'dbf' ? 'Tabelă DBF' : batch.fileMeta.kind.toUpperCase()} ·{' '}
        {countOf(batch.rowCount, 'un rând', 'rânduri')} · {BATCH_STATUS_LABEL[batch.status]}
      </p>
      {/* Where a refused action says why (app.js): the screen under it stays as it was. */}
      <Sheets sheets={batch.sheets} />
      <ReadAs batch={batch} samples={data.samples} />
      <div id="import-stare" aria-live="polite">
        {data.notice ? <Notice {...data.notice} /> : null}
      </div>
      <Steps data={data} />
    </section>
  );
}

export function ImportPage({ user, csrfToken, alerts, data }: { user: SessionUser; csrfToken: string; alerts?: AccountAlerts; data: ScreenData }) {
  return (
    <Layout title={`Import ${data.batch.id}`} tab="trimiteri" user={user} csrfToken={csrfToken} alerts={alerts}>
      <ImportScreen data={data} />
    </Layout>
  );
}
