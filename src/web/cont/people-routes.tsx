import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { AppError, type RequestErrorCode } from '../../errors';
import { statusOf } from '../../http/status';
import { accountOverview } from '../../services/accounts/overview';
import type { Mailer } from '../../services/mail/mailer';
import { invitationMail, resetMail } from '../../services/mail/messages';
import { isRole, ROLE_NAMES } from '../../services/roles';
import { cancelInvitation, INVITATION_HOURS, inviteColleague, issueReset, listInvitations, RESET_MINUTES, type IssuedLink } from '../../services/users/links';
import { disableColleague, enableColleague, listPeople, setRole } from '../../services/users/people';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { linkAddress, sendMail } from '../links/send';
import { Layout } from '../layout';
import { Notice, type NoticeProps } from '../notice';
import { idParam, INT4_MAX } from '../../routes/params';
import { ContNav } from './nav';
import { PeoplePage, type ShownLink } from './people-page';

const MESSAGES = {
  invitatie_trimisa: 'Invitația a fost trimisă pe e-mail.',
  invitatie_anulata: 'Invitația a fost anulată: linkul ei nu mai funcționează.',
  resetare_trimisa: 'Linkul de resetare a fost trimis pe e-mail colegului.',
  rol_schimbat: 'Rolul a fost schimbat; se aplică de la următoarea cerere a colegului.',
  dezactivat: 'Colegul a fost dezactivat: sesiunile lui s-au închis și nu mai poate intra.',
  activat: 'Colegul a fost activat din nou și poate intra cu parola lui.',
} as const;

const InviteForm = z.object({ email: z.string().max(254), rol: z.string().max(20) });
const RoleForm = z.object({ rol: z.string().max(20) });

const userIdOf = (c: Context<WebEnv>) => idParam(c.req.param('id') ?? '', INT4_MAX);

function backToPage(c: Context<WebEnv>, message: keyof typeof MESSAGES) {
  return c.redirect(`/cont/oameni?mesaj=${message}`, 303);
}

/**
 * Oameni (the account's administrator): invite a colleague with a role, cancel a pending
 * invitation, change a role, disable or enable, issue a reset link. Every rule is the services'
 * (services/roles.ts, services/users/people.ts): a clerk's forged post meets their INTERZIS.
 * A link is e-mailed when SMTP is set; otherwise it is shown in the answer, once.
 */
export function peopleRoutes(ctx: AppContext, mailer: Mailer | null) {
  const app = new Hono<WebEnv>();

  async function page(c: Context<WebEnv>, extra: { notice?: NoticeProps; shown?: ShownLink } = {}) {
    const actor = c.get('actor');
    const { user, csrfToken } = c.get('session');
    try {
      const [people, invitations] = await Promise.all([listPeople({ ctx, actor }), listInvitations({ ctx, actor })]);
      const status = extra.notice?.kind === 'error' ? statusOf(extra.notice.cod as RequestErrorCode) : 200;
      return c.html(
        <PeoplePage user={user} actor={actor} csrfToken={csrfToken} alerts={c.get('alerts')} people={people} invitations={invitations} byMail={mailer !== null} {...extra} />,
        status,
      );
    } catch (error) {
      // A clerk who opens the address gets the page of every tab with the services' refusal.
      if (!(error instanceof AppError) || error.cod !== 'INTERZIS') throw error;
      return c.html(
        <Layout title="Oameni" tab="cont" user={user} csrfToken={csrfToken} alerts={c.get('alerts')}>
          <ContNav actor={actor} current="oameni" />
          <h1>Oamenii contului</h1>
          <Notice kind="error" cod="INTERZIS" cauza={error.cauza} />
        </Layout>,
        statusOf('INTERZIS'),
      );
    }
  }

  /** A refusal of a form (a taken address, the last administrator): the page again with it. */
  const refused = (c: Context<WebEnv>, error: unknown) => {
    if (!(error instanceof AppError) || error.cod === 'INTERZIS' || error.cod === 'NEGASIT') throw error;
    return page(c, { notice: { kind: 'error', cod: error.cod === 'CERERE_INVALIDA' ? 'FORMULAR_INVALID' : error.cod, cauza: error.cauza } });
  };

  /** E-mails the link, or shows it once when no SMTP is set or the e-mail failed. */
  async function handOver(
    c: Context<WebEnv>,
    link: IssuedLink,
    kind: ShownLink['kind'],
    mail: (address: string) => Parameters<Mailer['send']>[0],
    sentMessage: keyof typeof MESSAGES,
  ) {
    const address = linkAddress(c, ctx, kind, link.token);
    if (mailer && (await sendMail(ctx, mailer, mail(address), { tip: kind, id: link.id, requestId: c.get('requestId'), accountId: c.get('actor').accountId }))) {
      return backToPage(c, sentMessage);
    }
    const notice: NoticeProps | undefined = mailer
      ? { kind: 'error', cod: 'EROARE_INTERNA', cauza: 'Serverul de e-mail nu a primit mesajul; dați-i colegului linkul de mai jos.' }
      : undefined;
    return page(c, { notice, shown: { kind, email: link.email, address, expiresAt: link.expiresAt } });
  }

  app.get('/cont/oameni', (c) => {
    const message = c.req.query('mesaj');
    const notice: NoticeProps | undefined = message && message in MESSAGES ? { kind: 'ok', text: MESSAGES[message as keyof typeof MESSAGES] } : undefined;
    return page(c, { notice });
  });

  app.post('/cont/oameni/invita', async (c) => {
    const actor = c.get('actor');
    const form = InviteForm.safeParse(await readForm(c));
    if (!form.success || !isRole(form.data.rol)) return page(c, { notice: { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Scrieți e-mailul colegului și alegeți un rol.' } });
    const role = form.data.rol;
    let link: IssuedLink;
    try {
      link = await inviteColleague({ ctx, actor, email: form.data.email, role, requestId: c.get('requestId') });
    } catch (error) {
      return refused(c, error);
    }
    const { name } = await accountOverview({ ctx, actor });
    return handOver(
      c,
      link,
      'invitatie',
      (address) => invitationMail({ to: link.email, accountName: name, roleName: ROLE_NAMES[role], link: address, hours: INVITATION_HOURS }),
      'invitatie_trimisa',
    );
  });

  app.post('/cont/oameni/invitatii/:id/anuleaza', async (c) => {
    await cancelInvitation({ ctx, actor: c.get('actor'), id: userIdOf(c), requestId: c.get('requestId') });
    return backToPage(c, 'invitatie_anulata');
  });

  app.post('/cont/oameni/:id/rol', async (c) => {
    const form = RoleForm.safeParse(await readForm(c));
    if (!form.success || !isRole(form.data.rol)) return page(c, { notice: { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Alegeți unul dintre roluri.' } });
    try {
      await setRole({ ctx, actor: c.get('actor'), userId: userIdOf(c), role: form.data.rol, requestId: c.get('requestId') });
    } catch (error) {
      return refused(c, error);
    }
    return backToPage(c, 'rol_schimbat');
  });

  app.post('/cont/oameni/:id/dezactiveaza', async (c) => {
    try {
      await disableColleague({ ctx, actor: c.get('actor'), userId: userIdOf(c), requestId: c.get('requestId') });
    } catch (error) {
      return refused(c, error);
    }
    return backToPage(c, 'dezactivat');
  });

  app.post('/cont/oameni/:id/activeaza', async (c) => {
    await enableColleague({ ctx, actor: c.get('actor'), userId: userIdOf(c), requestId: c.get('requestId') });
    return backToPage(c, 'activat');
  });

  app.post('/cont/oameni/:id/resetare', async (c) => {
    let link: IssuedLink;
    try {
      link = await issueReset({ ctx, actor: c.get('actor'), userId: userIdOf(c), requestId: c.get('requestId') });
    } catch (error) {
      return refused(c, error);
    }
    return handOver(c, link, 'resetare', (address) => resetMail({ to: link.email, link: address, minutes: RESET_MINUTES }), 'resetare_trimisa');
  });
  return app;
}
