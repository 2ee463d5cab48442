import { ciStep, integrationExamples } from '../../clients/examples';
import { FILE_PLACEHOLDER, KEY_PLACEHOLDER } from '../../clients/operations';
import { COLLECTION_PATH } from '../../routes/integrare';
import type { AccountAlerts } from '../../services/accounts/alerts';
import type { SessionUser } from '../../services/users/sessions';
import { Layout } from '../layout';
import { CodeBlock } from './code-block';
import { KeyTester, type KeyVerdict } from './key-tester';

/**
 * Integrare: the examples in seven languages for both channels, each generated from the one
 * description of the operations (src/clients), the CI step, the key tester. Without
 * JavaScript every language shows; app.js turns the list into remembered tabs.
 */
export function IntegrarePage(props: { user: SessionUser; csrfToken: string; alerts?: AccountAlerts; base: string; verdict?: KeyVerdict }) {
  const { base } = props;
  const languages = integrationExamples(base);
  return (
    <Layout title="Integrare" tab="integrare" user={props.user} csrfToken={props.csrfToken} alerts={props.alerts}>
      <h1>Integrare</h1>
      <p>
        Programul dvs. trimite prezentări la <code class="data">{base}</code> pe două căi: <strong>API JSON</strong> (o prezentare pe cerere, cu dry run înainte) sau{' '}
        <strong>import de fișier</strong> (xlsx, csv sau tabela .dbf a programului: încărcare, previzualizare, confirmare). În exemple, înlocuiți{' '}
        <code class="data">{KEY_PLACEHOLDER}</code> cu cheia contului și <code class="data">{FILE_PLACEHOLDER}</code> cu fișierul dvs. Credențialele registrului nu se trimit în
        exemple: se salvează o dată, în Cont.
      </p>
      <p>
        Referința completă: <a href="/docs">documentația API</a> (<a href="/openapi.json">OpenAPI</a>); colecția pentru Postman sau newman:{' '}
        <a href={COLLECTION_PATH}>postman-collection.json</a> (variabilele baseUrl și apiKey).
      </p>
      <KeyTester csrfToken={props.csrfToken} verdict={props.verdict} />
      <section class="card wide examples" aria-labelledby="exemple-titlu">
        <h2 id="exemple-titlu">Exemple</h2>
        <div class="lang-tabs" data-lang-tabs hidden>
          {languages.map((l) => (
            <button type="button" role="tab" id={`tab-${l.language}`} data-lang={l.language} aria-controls={`limbaj-${l.language}`} aria-selected="false">
              {l.label}
            </button>
          ))}
        </div>
        {languages.map((l) => (
          <div class="lang-panel" id={`limbaj-${l.language}`} data-lang-panel={l.language} role="tabpanel" aria-labelledby={`tab-${l.language}`}>
            <h3 class="lang-name">{l.label}</h3>
            {l.run ? null : (
              <p class="notice warn">
                Exemplele xBase sunt verificate doar ca structură (adrese, antete, nume de câmpuri, blocuri închise): testele noastre nu le rulează, pentru că nu avem {l.label} pe
                serverele de test. Rulați-le întâi pe mediul sandbox.
              </p>
            )}
            <CodeBlock id={`ex-${l.language}-prezentare`} title="Prezentare (JSON): dry run, apoi trimiterea" program={l.submission} />
            <CodeBlock id={`ex-${l.language}-import`} title="Import de fișier: încărcare, previzualizare, confirmare" program={l.upload} />
          </div>
        ))}
      </section>
      <section class="card wide" aria-labelledby="ci-titlu">
        <h2 id="ci-titlu">În CI</h2>
        <p>Un pas de job care trimite la dry run prezentarea produsă de build și oprește build-ul când verdictul nu este „queued”. Nu scrie nimic în gateway.</p>
        <CodeBlock id="ex-ci" title="Pas de CI (GitHub Actions; orice runner cu bash, curl și jq)" program={ciStep(base)} />
      </section>
      <section class="card" aria-labelledby="xbase-titlu">
        <h2 id="xbase-titlu">Programe xBase (FoxPro, Harbour, Clipper): codificarea textului</h2>
        <ul>
          <li>
            Datele acestor programe sunt de obicei în <strong>Windows-1250</strong>. Gateway-ul primește JSON numai în <strong>UTF-8</strong>: convertiți la trimitere (FoxPro:{' '}
            <code class="data">STRCONV(text, 9)</code>; Harbour: <code class="data">hb_jsonEncode(..., "UTF8")</code>) și înapoi la citirea răspunsului.
          </li>
          <li>
            Literele cu sedilă <strong>ş</strong> și <strong>ţ</strong> (din Windows-1250) sunt tratate ca <strong>ș</strong> și <strong>ț</strong> la potrivirea denumirilor
            (sugestii de cod, reguli de text): nu trebuie înlocuite înainte.
          </li>
          <li>
            Un fișier încărcat de aceste programe sosește de obicei ca <code class="data">application/octet-stream</code>: gateway-ul recunoaște xlsx sau csv după conținut, nu după
            tipul declarat, iar un csv în Windows-1250 este citit corect.
          </li>
          <li>
            Exemplele de import trimit <strong>tabela programului</strong> (.dbf, copiată cu <code class="data">COPY TO</code>), nu un export csv: pagina de cod se citește din
            antetul tabelei (852 și 1250 ca și celelalte); dacă antetul o numește greșit, câmpul <code class="data">codepage</code> o spune. O tabelă cu câmpuri memo se trimite
            într-o arhivă zip, împreună cu fișierul ei <code class="data">.fpt</code> / <code class="data">.dbt</code>.
          </li>
        </ul>
      </section>
    </Layout>
  );
}
