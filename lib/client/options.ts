/** What a caller can set on a client and on a call, and the settings a client runs with, defaults filled in. */
import type { BackoffOptions } from './retry-policy.js';

export interface PetStoreClientOptions {
  /** The API's base URL, ending in /v1: `http://localhost:3000/v1`, or a deployed stack's ApiUrl output. */
  baseUrl: string;
  /** An API key: `pet_live_…` (production) or `pet_test_…` (staging). */
  apiKey: string;
  /** Attempts per call, the first included. @default 5 */
  maxAttempts?: number;
  /**
   * The most a call may spend waiting, in ms: for Retry-After, backoff and quota together. A call that would have to
   * wait longer throws instead (the last error, or PetStoreQuotaError). @default 60_000
   */
  maxTotalWaitMs?: number;
  /** Each attempt is abandoned after this long (ms), and counts as no answer. @default 10_000 */
  attemptTimeoutMs?: number;
  /** Waits for a used-up window to reset instead of sending a request the API would refuse. @default true */
  waitForQuota?: boolean;
  backoff?: BackoffOptions;
  /** Injectable for tests and other runtimes. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch. @default Date.now */
  clock?: () => number;
  /** Waits `ms`, or rejects with the signal's reason when it aborts first. @default a timer */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1), for the jitter. @default Math.random */
  random?: () => number;
  /** A fresh Idempotency-Key for each create. @default crypto.randomUUID */
  newIdempotencyKey?: () => string;
}

export interface CallOptions {
  /** Aborts the call, retries and waits included. */
  signal?: AbortSignal;
}

export interface CreateOptions extends CallOptions {
  /** The Idempotency-Key to send; by default a new UUID, the same for every retry of this call. */
  idempotencyKey?: string;
}

export type Settings = Required<PetStoreClientOptions>;

export function settingsOf(options: PetStoreClientOptions): Settings {
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    maxAttempts: Math.max(1, options.maxAttempts ?? 5),
    maxTotalWaitMs: options.maxTotalWaitMs ?? 60_000,
    attemptTimeoutMs: options.attemptTimeoutMs ?? 10_000,
    waitForQuota: options.waitForQuota ?? true,
    backoff: options.backoff ?? {},
    // Looked up on each call, so a fetch installed (or replaced) after the client was made is the one used.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    clock: options.clock ?? Date.now,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    newIdempotencyKey: options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID()),
  };
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
