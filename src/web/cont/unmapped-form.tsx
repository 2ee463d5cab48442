import { CsrfField } from './csrf-field';

/**
 * The account's on_unmapped_error default, explained: what happens to a submission whose
 * operation code has no mapping when the program that sent it did not say.
 */
export function UnmappedDefault({ reject, csrfToken, editable }: { reject: boolean; csrfToken: string; editable: boolean }) {
  return (
    <section id="nemapate" class="card">
      <h2>Coduri de operație nemapate</h2>
      <p>
        Când o trimitere conține un cod de operație al service-ului pentru care nu există încă o mapare la codul registrului, iar programul care o trimite nu alege (câmpul{' '}
        <span class="mono">on_unmapped_error</span> lipsește), se aplică alegerea de mai jos.
      </p>
      {editable ? null : (
        <p>
          Acum, o trimitere cu un cod nemapat este <strong>{reject ? 'respinsă' : 'păstrată ca „Cod de mapat”'}</strong>. Alegerea o schimbă administratorul contului.
        </p>
      )}
      {editable ? (
        <form method="post" action="/cont/coduri-nemapate" class="form">
          <fieldset>
            <legend>Implicit, o trimitere cu un cod nemapat este</legend>
            <div class="field check">
              <input id="nemapate-pastreaza" type="radio" name="respinge" value="0" checked={!reject} />
              <label for="nemapate-pastreaza">
                <strong>păstrată</strong> ca „Cod de mapat”: o mapați în Mapări și pleacă singură la registru (recomandat)
              </label>
            </div>
            <div class="field check">
              <input id="nemapate-respinge" type="radio" name="respinge" value="1" checked={reject} />
              <label for="nemapate-respinge">
                <strong>respinsă</strong> pe loc (eroare <span class="mono">COD_NEMAPAT</span>): nu se păstrează, programul trebuie să o retrimită după mapare
              </label>
            </div>
          </fieldset>
          <CsrfField token={csrfToken} />
          <button type="submit">Salvează alegerea</button>
        </form>
      ) : null}
    </section>
  );
}
