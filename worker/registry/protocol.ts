import { z } from 'zod';

/**
 * Every path, query parameter and field name of the registry protocol
 * (../shared/registry-protocol.md), in one place. The real registry's interface is not
 * public; a deployment whose registry differs sets GATEWAY_REGISTRY_PROTOCOL to a JSON
 * object overriding any of these names, instead of editing code.
 */
export const DEFAULT_PROTOCOL = {
  paths: {
    login: '/api/auth/login',
    nomenclator: '/api/nomenclator/prestatii',
    send: '/api/prezentari',
    finalised: '/api/prezentari',
  },
  query: { status: 'status', dataStart: 'dataStart', dataEnd: 'dataEnd' },
  login: { username: 'username', password: 'password', token: 'token', expiresIn: 'expiresIn' },
  nomenclator: { cod: 'cod', denumire: 'denumire' },
  record: {
    vin: 'vin',
    nrInmatriculare: 'nrInmatriculare',
    dataPrestatie: 'dataPrestatie',
    odometruInitial: 'odometruInitial',
    odometruFinal: 'odometruFinal',
    obs: 'obs',
    prestatii: 'prestatii',
    codPrestatie: 'codPrestatie',
    numePrestatie: 'numePrestatie',
    idPrezentare: 'idPrezentare',
    sistemReparat: 'sistemReparat',
    status: 'status',
    b64Image: 'b64Image',
  },
  accepted: { id: 'id' },
  refused: { cod: 'cod', mesaj: 'mesaj' },
  // The only state value the gateway ever sends, and the one the finalised list is asked for.
  finalisedStatus: 'FINALIZATA',
};
export type RegistryProtocol = typeof DEFAULT_PROTOCOL;

const Names = z.record(z.string(), z.string().min(1));
const Override = z
  .object({
    paths: Names,
    query: Names,
    login: Names,
    nomenclator: Names,
    record: Names,
    accepted: Names,
    refused: Names,
    finalisedStatus: z.string().min(1),
  })
  .partial()
  .strict();

/** The default protocol with a JSON override laid over it; unknown keys are refused. */
export function protocolFrom(overrideJson: string | undefined): RegistryProtocol {
  if (!overrideJson) return DEFAULT_PROTOCOL;
  const parsed = Override.safeParse(JSON.parse(overrideJson));
  if (!parsed.success) throw new Error(`GATEWAY_REGISTRY_PROTOCOL: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const o = parsed.data;
  const section = <K extends Exclude<keyof RegistryProtocol, 'finalisedStatus'>>(key: K): RegistryProtocol[K] => {
    const extra = o[key] ?? {};
    const unknown = Object.keys(extra).filter((k) => !(k in DEFAULT_PROTOCOL[key]));
    if (unknown.length) throw new Error(`GATEWAY_REGISTRY_PROTOCOL.${key}: unknown names ${unknown.join(', ')}`);
    return { ...DEFAULT_PROTOCOL[key], ...extra };
  };
  return {
    paths: section('paths'),
    query: section('query'),
    login: section('login'),
    nomenclator: section('nomenclator'),
    record: section('record'),
    accepted: section('accepted'),
    refused: section('refused'),
    finalisedStatus: o.finalisedStatus ?? DEFAULT_PROTOCOL.finalisedStatus,
  };
}
