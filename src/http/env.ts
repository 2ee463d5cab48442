import type { Principal } from '../context';

export type AppEnv = {
  Variables: {
    requestId: string;
    principal: Principal;
  };
};
