/** The Idempotency-Key protocol's names and limits, shared with the client (lib/client/): free of imports. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Sent as `true` on a replay. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX = 255;
/** How long a key and its answer are remembered. */
export const REMEMBERED_SECONDS = 24 * 60 * 60;
