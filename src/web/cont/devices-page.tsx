import type { Actor } from '../../context';
import type { AccountAlerts } from '../../services/accounts/alerts';
import type { DeviceSession } from '../../services/users/devices';
import type { SessionUser } from '../../services/users/sessions';
import { Layout } from '../layout';
import { Notice, type NoticeProps } from '../notice';
import { showInstant } from '../ui/format';
import { CsrfField } from './csrf-field';
import { ContNav } from './nav';

const BROWSERS: Array<[RegExp, string]> = [
  [/Edg\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\//, 'Firefox'],
  [/Chrom(e|ium)\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/Android/, 'Android'],
  [/iPhone|iPad/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Chrome pe Windows" from a user agent: enough to recognise one's own devices. */
export function describeBrowser(userAgent: string | null): string {
  if (!userAgent) return 'browser necunoscut';
  const browser = BROWSERS.find(([re]) => re.test(userAgent))?.[1] ?? 'alt browser';
  const system = SYSTEMS.find(([re]) => re.test(userAgent))?.[1];
  return system ? `${browser} pe ${system}` : browser;
}

/** Sesiunile mele: where the user is signed in, each ended with one button (this one by Ieșire). */
export function DevicesPage({
  user,
  actor,
  csrfToken,
  alerts,
  devices,
  currentId,
  notice,
}: {
  user: SessionUser;
  actor: Actor;
  csrfToken: string;
  alerts?: AccountAlerts;
  devices: DeviceSession[];
  currentId: number;
  notice?: NoticeProps;
}) {
  const others = devices.filter((d) => d.id !== currentId).length;
  return (
    <Layout title="Sesiunile mele" tab="cont" user={user} csrfToken={csrfToken} alerts={alerts}>
      <ContNav actor={actor} current="sesiuni" />
      <h1>Sesiunile mele</h1>
      {notice ? <Notice {...notice} /> : null}
      <section class="card">
        <p>Dispozitivele pe care ați intrat cu {user.email}. Dacă nu recunoașteți unul, închideți-i sesiunea și schimbați-vă parola („Am uitat parola”).</p>
        <table class="list devices">
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Adresa</th>
              <th scope="col">Intrat la</th>
              <th scope="col">Ultima folosire</th>
              <th scope="col">
                <span class="sr-only">Acțiuni</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {devices.map((d) => (
              <tr class={d.id === currentId ? 'current' : undefined}>
                <td>
                  {describeBrowser(d.userAgent)}
                  {d.id === currentId ? <strong> · acesta</strong> : null}
                </td>
                <td class="mono">{d.address ?? '—'}</td>
                <td>{showInstant(d.createdAt)}</td>
                <td>{showInstant(d.lastSeenAt)}</td>
                <td>
                  {d.id === currentId ? (
                    <span class="muted">se închide cu Ieșire</span>
                  ) : (
                    <form method="post" action={`/cont/sesiuni/${d.id}/inchide`}>
                      <CsrfField token={csrfToken} />
                      <button type="submit" class="danger" aria-label={`Închide sesiunea ${describeBrowser(d.userAgent)}, ${d.address ?? ''}`}>
                        Închide
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {others > 0 ? (
          <form method="post" action="/cont/sesiuni/inchide-celelalte" class="actions">
            <CsrfField token={csrfToken} />
            <button type="submit" class="danger">
              Închide celelalte sesiuni ({others})
            </button>
          </form>
        ) : null}
      </section>
    </Layout>
  );
}
