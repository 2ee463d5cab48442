import { CATALOG, type ErrorCode } from '../errors';

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
      <strong>{problema}</strong>
      {props.cauza ? <p>{props.cauza}</p> : null}
      <p class="fix">{fix}</p>
    </div>
  );
}

export const notice = (props: NoticeProps) => <Notice {...props} />;
