import { MappingInput } from '../../domain/mapping-input';

/** The form's two fields (the API's schema; auto_send keeps its default). */
export const MappingForm = MappingInput.pick({ cod_op_service: true, cod_prestatie: true });

/** What a saved mapping did to the held submissions, in words. */
export function requeuedText({ queued, needs_mapping: held }: { queued: number; needs_mapping: number }): string {
  const requeued = queued === 1 ? 'o trimitere a fost repusă în coadă' : `${queued} trimiteri au fost repuse în coadă`;
  return held > 0 ? `${requeued}; ${held} așteaptă încă alte coduri.` : `${requeued}.`;
}
