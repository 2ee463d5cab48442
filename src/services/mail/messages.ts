import { html } from 'hono/html';
import type { Mail } from './mailer';

// The e-mails the gateway sends, in Romanian, each as plain text and HTML with the same words.
// The link is the only way in: it names no password and expires.

const showHours = (hours: number) => (hours === 1 ? 'o oră' : `${hours} de ore`);

function mail(to: string, subject: string, paragraphs: string[], link: string, action: string, after: string): Mail {
  const text = [...paragraphs, '', `${action}:`, link, '', after, '', '— Gateway prezentări'].join('\n');
  const body = html`<!doctype html>
<html lang="ro"><head><meta charset="utf-8" /><title>${subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1b1f24">
${paragraphs.map((p) => html`<p>${p}</p>`)}
<p><a href="${link}" style="display: inline-block; padding: 0.6em 1.2em; background: #1d4ed8; color: #fff; text-decoration: none; border-radius: 4px">${action}</a></p>
<p style="font-size: 0.9em">Dacă butonul nu se deschide, copiați adresa în browser:<br />${link}</p>
<p style="font-size: 0.9em; color: #555">${after}</p>
<p>— Gateway prezentări</p>
</body></html>`;
  return { to, subject, text, html: body.toString() };
}

export function invitationMail({ to, accountName, roleName, link, hours }: { to: string; accountName: string; roleName: string; link: string; hours: number }): Mail {
  return mail(
    to,
    `Invitație în contul ${accountName} · Gateway prezentări`,
    [`Bună ziua,`, `Ați fost invitat(ă) în contul ${accountName} din Gateway prezentări, cu rolul ${roleName}. Alegeți-vă parola prin linkul de mai jos.`],
    link,
    'Alegeți parola',
    `Linkul se poate folosi o singură dată și expiră în ${showHours(hours)}. Dacă nu vă așteptați la această invitație, ignorați e-mailul.`,
  );
}

export function resetMail({ to, link, minutes }: { to: string; link: string; minutes: number }): Mail {
  return mail(
    to,
    'Resetarea parolei · Gateway prezentări',
    ['Bună ziua,', 'Cineva (probabil dvs.) a cerut o parolă nouă pentru contul dvs. din Gateway prezentări. Alegeți-o prin linkul de mai jos.'],
    link,
    'Alegeți o parolă nouă',
    `Linkul se poate folosi o singură dată și expiră în ${minutes} de minute. După schimbare, celelalte sesiuni deschise se închid. Dacă nu ați cerut-o, ignorați e-mailul: parola rămâne cea de acum.`,
  );
}
