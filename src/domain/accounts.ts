/**
 * The account a submission without one belongs to (rows stored before accounts existed), and
 * the account of a request without a key when keys are not required. The schema's
 * `submissions.scope_account_id` is computed from it, and the idempotency key hashes it in
 * place of a NULL account: the one definition of the spec's rule "NULL is account 1".
 */
export const DEFAULT_ACCOUNT_ID = 1;
