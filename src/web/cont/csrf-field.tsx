/** A plain form post carries the session's CSRF token as a field. */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}
