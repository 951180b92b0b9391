/** The client's calls, retried the way the API asks (retry-policy.ts); answers checked against the server's own valibot schemas. */
import * as v from 'valibot';
import { CategorySchema } from '../categories/schema.js';
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency/names.js';
import { RateLimitStatusSchema } from '../rate-limit/schema.js';
import { PetStoreBannedError, PetStoreError, PetStoreNetworkError, PetStoreQuotaError, PetStoreResponseError } from './errors.js';
import { type CallOptions, type CreateOptions, type PetStoreClientOptions, type Settings, settingsOf } from './options.js';
import { type RateLimitState, RateLimitTracker } from './rate-limit-state.js';
import { backoffMs, isRetried } from './retry-policy.js';
import { type Answer, attempt, errorOf, type Request } from './transport.js';
import type { Category, NewCategory, RateLimitStatus } from './types.js';

export type { CallOptions, CreateOptions, PetStoreClientOptions } from './options.js';

export class PetStoreClient {
  readonly #settings: Settings;
  readonly #rateLimit = new RateLimitTracker();

  constructor(options: PetStoreClientOptions) {
    this.#settings = settingsOf(options);
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

  /** POST /categories with one Idempotency-Key across retries: at most one category is created, and a retry gets it back. */
  async createCategory(category: NewCategory, options: CreateOptions = {}): Promise<Category> {
    const key = options.idempotencyKey ?? this.#settings.newIdempotencyKey();
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
    const { maxAttempts, maxTotalWaitMs, random, backoff } = this.#settings;
    let waited = 0;
    const wait = async (ms: number) => {
      waited += ms;
      await this.#settings.sleep(ms, signal);
    };
    const withinBudget = (ms: number) => waited + ms <= maxTotalWaitMs;

    for (let attempts = 1; ; attempts++) {
      signal?.throwIfAborted();
      if (request.counts) await this.#awaitQuota(wait, withinBudget);
      let failure: PetStoreError | PetStoreNetworkError;
      try {
        const answer = await this.#attempt(request, signal);
        if (answer.status < 400) return answer;
        failure = errorOf(answer, this.#settings.clock());
        if (failure instanceof PetStoreBannedError) this.#rateLimit.banned(failure.until.getTime());
      } catch (error) {
        if (!(error instanceof PetStoreNetworkError)) throw error;
        failure = error;
      }
      failure.attempts = attempts;
      if (failure instanceof PetStoreError && !isRetried(failure.status, failure.code)) throw failure;
      if (attempts >= maxAttempts) throw failure;
      const delay = (failure instanceof PetStoreError ? failure.retryAfterMs : undefined) ?? backoffMs(attempts - 1, random, backoff);
      if (!withinBudget(delay)) throw failure;
      await wait(delay);
    }
  }

  /** Waits until a used-up window resets; throws when it would be refused anyway (a ban) or wait too long. */
  async #awaitQuota(wait: (ms: number) => Promise<void>, withinBudget: (ms: number) => boolean): Promise<void> {
    for (;;) {
      const now = this.#settings.clock();
      const blocked = this.#rateLimit.blockedUntil(now);
      if (!blocked) return;
      const until = new Date(blocked.until);
      if (blocked.reason === 'banned') {
        throw new PetStoreBannedError(until, 'not sent: every key of this customer is banned, and a request during a ban would be refused');
      }
      const delay = blocked.until - now;
      if (!this.#settings.waitForQuota || !withinBudget(delay)) {
        throw new PetStoreQuotaError(
          until,
          `Not sent: the ${blocked.reason} window is used up until ${until.toISOString()}, so the API would refuse it with 429 RATE_LIMIT_EXCEEDED`,
        );
      }
      await wait(delay);
    }
  }

  async #attempt(request: Request, signal?: AbortSignal): Promise<Answer> {
    const sending = request.counts ? this.#rateLimit.sending() : undefined;
    try {
      const answer = await attempt(this.#settings, request, signal);
      this.#rateLimit.observe(answer.headers, this.#settings.clock());
      return answer;
    } finally {
      sending?.settled();
    }
  }
}
