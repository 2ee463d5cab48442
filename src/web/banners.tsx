import type { AccountAlerts } from '../services/accounts/alerts';
import { countOf, showMinute } from './ui/format';

/**
 * What every signed-in page warns about, above its content: submissions waiting for
 * credentials, and a login the registry refused (with the time, so the clerk can tell an
 * old refusal from the password typed a minute ago). Both lead to Cont.
 */
export function Banners({ alerts }: { alerts?: AccountAlerts }) {
  if (!alerts) return null;
  const waiting = !alerts.hasCredentials && alerts.waitingForCredentials > 0;
  const refused = alerts.loginRefused;
  if (!waiting && !refused) return null;
  return (
    <div class="banners">
      {refused ? (
        <p class="banner error" role="alert">
          <strong>Registrul a refuzat autentificarea la {showMinute(refused.at)}</strong> ({refused.cauza}).{' '}
          {alerts.refusedAtLogin > 0 ? `${countOf(alerts.refusedAtLogin, 'O trimitere este', 'trimiteri sunt')} în eroare din acest motiv. ` : ''}
          <a href="/cont#creds">Verificați credențialele în Cont</a>
        </p>
      ) : null}
      {waiting ? (
        <p class="banner" role="status">
          {countOf(alerts.waitingForCredentials, 'O trimitere așteaptă', 'trimiteri așteaptă')} credențialele registrului — <a href="/cont#creds">Salvați-le în Cont</a>
        </p>
      ) : null}
    </div>
  );
}
