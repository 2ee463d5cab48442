import { Hono, type Context } from 'hono';
import type { AppContext } from '../../context';
import { idParam, INT4_MAX } from '../../routes/params';
import { endDevice, endOtherDevices, listDevices } from '../../services/users/devices';
import type { WebEnv } from '../env';
import type { NoticeProps } from '../notice';
import { countOf } from '../ui/format';
import { DevicesPage } from './devices-page';

/** Sesiunile mele: every user's own sessions, listed and ended. */
export function devicesRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();
  const page = async (c: Context<WebEnv>, notice?: NoticeProps) => {
    const { user, csrfToken, id } = c.get('session');
    const actor = c.get('actor');
    const devices = await listDevices({ ctx, actor });
    return c.html(<DevicesPage user={user} actor={actor} csrfToken={csrfToken} alerts={c.get('alerts')} devices={devices} currentId={id} notice={notice} />);
  };
  app.get('/cont/sesiuni', (c) => {
    const ended = /^\d{1,4}$/.test(c.req.query('inchise') ?? '') ? Number(c.req.query('inchise')) : 0;
    return page(c, ended > 0 ? { kind: 'ok', text: `${ended === 1 ? 'O sesiune a fost închisă' : `${countOf(ended, 'o sesiune', 'sesiuni')} au fost închise`}.` } : undefined);
  });
  app.post('/cont/sesiuni/:id/inchide', async (c) => {
    const id = idParam(c.req.param('id'), INT4_MAX);
    // This browser's own session ends by Ieșire, which also clears its cookie.
    if (id === c.get('session').id) return c.redirect('/cont/sesiuni', 303);
    await endDevice({ ctx, actor: c.get('actor'), id, requestId: c.get('requestId') });
    return c.redirect('/cont/sesiuni?inchise=1', 303);
  });
  app.post('/cont/sesiuni/inchide-celelalte', async (c) => {
    const ended = await endOtherDevices({ ctx, actor: c.get('actor'), keep: c.get('session').id, requestId: c.get('requestId') });
    return c.redirect(`/cont/sesiuni?inchise=${ended}`, 303);
  });
  return app;
}
