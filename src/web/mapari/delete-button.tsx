/** Deletes a mapping or a rule behind a confirmation that says what follows; the editor answers. */
export function DeleteButton({ path, confirm }: { path: string; confirm: string }) {
  return (
    <button type="button" class="danger" hx-post={`${path}/sterge`} hx-target="#mapari" hx-swap="outerHTML" hx-disable="this" hx-confirm={confirm}>
      Șterge
    </button>
  );
}
