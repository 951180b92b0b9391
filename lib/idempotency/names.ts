/**
 * The names and limits of the Idempotency-Key protocol, which the server (lib/idempotency/key.ts) and the TypeScript
 * client (lib/client/) share. Free of imports, so the client carries nothing of the server with it.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Sent as `true` on a replay. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX = 255;
/** How long a key and its answer are remembered. */
export const REMEMBERED_SECONDS = 24 * 60 * 60;
