/**
 * A typed client of the Pet Store API that retries the way the API asks: it waits for Retry-After, backs off
 * with full jitter where there is none, never retries a ban or a request it has to fix, sends one Idempotency-Key
 * per create across all its retries, and waits for quota rather than send a request that is certain to be refused.
 * Built on `fetch` alone; answers are checked against the same valibot schemas the server uses.
 */
import * as v from 'valibot';
import { CategorySchema } from '../categories/schema.js';
import { type ErrorCode, isErrorCode } from '../http/errors.js';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../http/idempotency-names.js';
import { RateLimitStatusSchema } from '../rate-limit/schema.js';
import { PetStoreBannedError, PetStoreError, PetStoreNetworkError, PetStoreQuotaError, PetStoreResponseError } from './errors.js';
import { type RateLimitState, RateLimitTracker } from './rate-limit-state.js';
import { type BackoffOptions, backoffMs, isRetried, retryAfterMs } from './retry-policy.js';
import type { Category, NewCategory, RateLimitStatus } from './types.js';

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

interface Request {
  method: 'GET' | 'POST';
  path: string;
  /** Whether an admitted request counts against the plan (all but getRateLimitStatus). */
  counts: boolean;
  body?: string;
  headers?: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

const ErrorBodySchema = v.object({ code: v.string(), message: v.string(), status: v.number() });

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

/** The code of an answer whose body is not the contract's Error (an intermediary's page): what its status means. */
function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 429) return 'THROTTLED';
  if (status === 503) return 'SERVICE_UNAVAILABLE';
  return 'INTERNAL_ERROR';
}

export class PetStoreClient {
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #maxAttempts: number;
  readonly #maxTotalWaitMs: number;
  readonly #attemptTimeoutMs: number;
  readonly #waitForQuota: boolean;
  readonly #backoff: BackoffOptions;
  readonly #fetch: typeof fetch;
  readonly #clock: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #newIdempotencyKey: () => string;
  readonly #rateLimit = new RateLimitTracker();

  constructor(options: PetStoreClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.#maxTotalWaitMs = options.maxTotalWaitMs ?? 60_000;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
    this.#waitForQuota = options.waitForQuota ?? true;
    this.#backoff = options.backoff ?? {};
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#clock = options.clock ?? Date.now;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#random = options.random ?? Math.random;
    this.#newIdempotencyKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  }

  /** The rate-limit state of the last answer: both windows, the tightest one, a ban. */
  get rateLimit(): RateLimitState {
    return this.#rateLimit.state;
  }

  /** GET /categories: every category, ascending by id. */
  async listCategories(options: CallOptions = {}): Promise<Category[]> {
    const answer = await this.#call({ method: 'GET', path: '/categories', counts: true }, options.signal);
    return this.#parse(v.array(CategorySchema), answer);
  }

  /**
   * POST /categories with an Idempotency-Key, the same across retries: however many attempts it takes, at most one
   * category is created, and a retry after a lost answer gets that category back.
   */
  async createCategory(category: NewCategory, options: CreateOptions = {}): Promise<Category> {
    const key = options.idempotencyKey ?? this.#newIdempotencyKey();
    const answer = await this.#call(
      {
        method: 'POST',
        path: '/categories',
        counts: true,
        body: JSON.stringify(category),
        headers: { 'Content-Type': 'application/json', [IDEMPOTENCY_KEY_HEADER]: key },
      },
      options.signal,
    );
    return this.#parse(CategorySchema, answer);
  }

  /** GET /rate-limit: plan, both windows and ban; counts against nothing, so it is sent even when a window is used up. */
  async getRateLimitStatus(options: CallOptions = {}): Promise<RateLimitStatus> {
    const answer = await this.#call({ method: 'GET', path: '/rate-limit', counts: false }, options.signal);
    return this.#parse(RateLimitStatusSchema, answer);
  }

  #parse<T extends v.GenericSchema>(schema: T, answer: Answer): v.InferOutput<T> {
    const parsed = v.safeParse(schema, answer.body);
    if (!parsed.success) {
      throw new PetStoreResponseError(
        `The API answered ${answer.status} with a body the contract does not allow: ${parsed.issues[0]?.message ?? 'unknown shape'}`,
        answer.status,
        answer.headers.get('x-request-id') ?? undefined,
      );
    }
    return parsed.output;
  }

  async #call(request: Request, signal?: AbortSignal): Promise<Answer> {
    let waited = 0;
    const wait = async (ms: number) => {
      waited += ms;
      await this.#sleep(ms, signal);
    };
    const withinBudget = (ms: number) => waited + ms <= this.#maxTotalWaitMs;

    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      if (request.counts) await this.#awaitQuota(wait, withinBudget);
      let failure: PetStoreError | PetStoreNetworkError;
      try {
        const answer = await this.#attempt(request, signal);
        if (answer.status < 400) return answer;
        failure = this.#errorOf(answer);
      } catch (error) {
        if (!(error instanceof PetStoreNetworkError)) throw error;
        failure = error;
      }
      failure.attempts = attempt;
      if (failure instanceof PetStoreError && !isRetried(failure.status, failure.code)) throw failure;
      if (attempt >= this.#maxAttempts) throw failure;
      const delay =
        (failure instanceof PetStoreError ? failure.retryAfterMs : undefined) ?? backoffMs(attempt - 1, this.#random, this.#backoff);
      if (!withinBudget(delay)) throw failure;
      await wait(delay);
    }
  }

  /** Waits until a used-up window resets; throws when it would be refused anyway (a ban) or wait too long. */
  async #awaitQuota(wait: (ms: number) => Promise<void>, withinBudget: (ms: number) => boolean): Promise<void> {
    for (;;) {
      const now = this.#clock();
      const blocked = this.#rateLimit.blockedUntil(now);
      if (!blocked) return;
      const until = new Date(blocked.until);
      if (blocked.reason === 'banned') {
        throw new PetStoreBannedError(until, 'not sent: every key of this customer is banned, and a request during a ban would be refused');
      }
      const delay = blocked.until - now;
      if (!this.#waitForQuota || !withinBudget(delay)) {
        throw new PetStoreQuotaError(
          until,
          `Not sent: the ${blocked.reason} window is used up until ${until.toISOString()}, so the API would refuse it with 429 RATE_LIMIT_EXCEEDED`,
        );
      }
      await wait(delay);
    }
  }

  async #attempt(request: Request, signal?: AbortSignal): Promise<Answer> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#attemptTimeoutMs);
    const onAbort = () => timeout.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const sending = request.counts ? this.#rateLimit.sending() : undefined;
    try {
      const response = await this.#fetch(`${this.#baseUrl}${request.path}`, {
        method: request.method,
        headers: { Accept: 'application/json', Authorization: `Bearer ${this.#apiKey}`, ...request.headers },
        body: request.body,
        signal: timeout.signal,
      });
      const text = await response.text();
      this.#rateLimit.observe(response.headers, this.#clock());
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: response.status, headers: response.headers, body };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.signal.aborted) {
        throw new PetStoreNetworkError(`No answer within ${this.#attemptTimeoutMs} ms from ${request.method} ${request.path}`, {
          cause: error,
          timedOut: true,
        });
      }
      throw new PetStoreNetworkError(`No answer from ${request.method} ${request.path}: ${String(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      sending?.settled();
    }
  }

  #errorOf(answer: Answer): PetStoreError {
    const { status, headers } = answer;
    const parsed = v.safeParse(ErrorBodySchema, answer.body);
    const code = parsed.success && isErrorCode(parsed.output.code) ? parsed.output.code : codeForStatus(status);
    const message = parsed.success ? parsed.output.message : `The API answered ${status}`;
    const details = {
      requestId: headers.get('x-request-id') ?? undefined,
      retryAfterMs: retryAfterMs(headers.get('retry-after'), this.#clock()),
      replayed: headers.get(REPLAYED_HEADER) === 'true',
    };
    if (code === 'API_KEY_TEMPORARILY_BANNED') {
      const until = this.#clock() + (details.retryAfterMs ?? 0);
      this.#rateLimit.banned(until);
      return new PetStoreBannedError(new Date(until), message, details);
    }
    return new PetStoreError(code, status, message, details);
  }
}
