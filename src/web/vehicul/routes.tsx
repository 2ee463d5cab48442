import { Hono } from 'hono';
import type { AppContext } from '../../context';
import { vehicleHistory, vinOfPath } from '../../services/vehicles/history';
import type { WebEnv } from '../env';
import { VehiclePage } from './page';

/**
 * /vehicul/{VIN}: the account's records of one vehicle. A VIN the account never reported
 * (another account's included) answers the same page, empty, with 404: nothing tells that
 * another workshop serviced it.
 */
export function vehiculRoutes(ctx: AppContext) {
  return new Hono<WebEnv>().get('/vehicul/:vin', async (c) => {
    const { user, csrfToken } = c.get('session');
    const history = await vehicleHistory({ ctx, actor: c.get('actor'), vin: vinOfPath(c.req.param('vin')) });
    return c.html(<VehiclePage user={user} csrfToken={csrfToken} alerts={c.get('alerts')} history={history} />, history.records.length > 0 ? 200 : 404);
  });
}
