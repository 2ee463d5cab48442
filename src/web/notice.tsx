import type { Context } from 'hono';
import { CATALOG, type ErrorCode, type RequestErrorCode } from '../errors';
import { statusOf } from '../http/status';
import { inClerkWords } from './ui/field-labels';

export type NoticeProps = { kind: 'error'; cod: ErrorCode; cauza?: string } | { kind: 'ok'; text: string };

/** A message at the top of a panel or form: an error in the catalog's words (problem, cause, fix), or a confirmation. */
export function Notice(props: NoticeProps) {
  if (props.kind === 'ok') {
    return (
      <div class="notice ok" role="status">
        {props.text}
      </div>
    );
  }
  const { problema, fix } = CATALOG[props.cod];
  return (
    <div class="notice error" role="alert">
      <strong>{inClerkWords(problema)}</strong>
      {props.cauza ? <p>{inClerkWords(props.cauza)}</p> : null}
      <p class="fix">{inClerkWords(fix)}</p>
    </div>
  );
}

export const notice = (props: NoticeProps) => <Notice {...props} />;

/** A request refused with a catalog code: its notice, at the code's status (http/status.ts). */
export const errorNotice = (c: Context, cod: RequestErrorCode, cauza?: string) => c.html(notice({ kind: 'error', cod, cauza }), statusOf(cod));

/** A view that shows a refusal, answered at its code's status (http/status.ts): the one place a dashboard refusal gets its status. */
export const answerRefused = (c: Context, view: Parameters<Context['html']>[0], cod: RequestErrorCode) => c.html(view, statusOf(cod));
