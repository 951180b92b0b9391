/** The rate-limit state read from the API's headers; resets kept on the client's own clock, so a skewed clock still waits right. */
export type WindowName = 'minute' | 'day';

export interface WindowState {
  limit: number;
  /** Requests left, as of the answers received (requests in flight not subtracted). */
  remaining: number;
  /** When the window resets, in milliseconds on the client's clock. */
  resetAt: number;
  /** The window's length in seconds (60 for the minute, 86,400 for the day). */
  windowSeconds: number;
}

export interface RateLimitState {
  minute?: WindowState;
  day?: WindowState;
  /** X-RateLimit-*: the window with the fewest requests left; `reset` in Unix seconds, as the server sent it. */
  tightest?: { limit: number; remaining: number; reset: number };
  /** Milliseconds on the client's clock until which every request is refused with API_KEY_TEMPORARILY_BANNED. */
  bannedUntil?: number;
  /** When the last answer with rate-limit headers arrived (client clock, ms). */
  observedAt?: number;
}

interface Item {
  name: string;
  params: Map<string, number>;
}

/** A Structured Fields list such as `"minute";q=60;w=60, "day";q=1000;w=86400`, read leniently. */
function parseList(value: string | null): Item[] {
  if (!value) return [];
  return value.split(',').flatMap((member) => {
    const [rawName, ...rawParams] = member.split(';').map((part) => part.trim());
    const name = rawName?.replace(/^"|"$/g, '');
    if (!name) return [];
    const params = new Map<string, number>();
    for (const param of rawParams) {
      const [key, raw] = param.split('=');
      const number = Number(raw);
      if (key && raw !== undefined && Number.isFinite(number)) params.set(key.trim(), number);
    }
    return [{ name, params }];
  });
}

const wholeNumber = (value: string | null): number | undefined =>
  value !== null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;

/** Two readings of one window belong to the same period when their resets are less than half a window apart. */
const samePeriod = (a: WindowState, b: WindowState) => Math.abs(a.resetAt - b.resetAt) < (a.windowSeconds * 1000) / 2;

export class RateLimitTracker {
  #state: RateLimitState = {};
  /** Requests that count, sent and not yet answered. */
  #inFlight = 0;

  get state(): RateLimitState {
    return structuredClone(this.#state);
  }

  /** Reads an answer's headers, received at `now` (client clock, ms). Answers without a customer (401) say nothing. */
  observe(headers: Headers, now: number): void {
    const limit = wholeNumber(headers.get('x-ratelimit-limit'));
    const remaining = wholeNumber(headers.get('x-ratelimit-remaining'));
    const reset = wholeNumber(headers.get('x-ratelimit-reset'));
    // Limit 0 is the API's way of saying that no customer is known (401, 404): no quota was read.
    if (limit === undefined || limit === 0 || remaining === undefined || reset === undefined) return;
    const next: RateLimitState = { ...this.#state, tightest: { limit, remaining, reset }, observedAt: now };

    const policy = new Map(parseList(headers.get('ratelimit-policy')).map((item) => [item.name, item.params]));
    for (const item of parseList(headers.get('ratelimit'))) {
      if (item.name !== 'minute' && item.name !== 'day') continue;
      const r = item.params.get('r');
      const t = item.params.get('t');
      const q = policy.get(item.name)?.get('q');
      const w = policy.get(item.name)?.get('w') ?? (item.name === 'minute' ? 60 : 86_400);
      if (r === undefined || t === undefined || q === undefined) continue;
      const reading: WindowState = { limit: q, remaining: r, resetAt: now + t * 1000, windowSeconds: w };
      const known = this.#state[item.name];
      // Answers to concurrent requests can arrive out of order: within one period the lowest count left is the newest.
      next[item.name] = known && samePeriod(known, reading) ? { ...reading, remaining: Math.min(known.remaining, r) } : reading;
    }
    this.#state = next;
  }

  /** A 429 API_KEY_TEMPORARILY_BANNED: nothing is admitted until `until` (client clock, ms). */
  banned(until: number): void {
    this.#state = { ...this.#state, bannedUntil: until };
  }

  /** A request that counts is being sent; `settled` when its answer (or failure) is in. */
  sending(): { settled: () => void } {
    this.#inFlight++;
    let done = false;
    return {
      settled: () => {
        if (done) return;
        done = true;
        this.#inFlight--;
      },
    };
  }

  /** Until when (client clock, ms) a request that counts is sure to be refused: a used-up window (in flight counted), a ban. */
  blockedUntil(now: number): { until: number; reason: 'banned' | WindowName } | undefined {
    const { bannedUntil } = this.#state;
    if (bannedUntil !== undefined && bannedUntil > now) return { until: bannedUntil, reason: 'banned' };
    let blocked: { until: number; reason: WindowName } | undefined;
    for (const name of ['minute', 'day'] as const) {
      const window = this.#state[name];
      if (!window || window.resetAt <= now || window.remaining - this.#inFlight > 0) continue;
      if (!blocked || window.resetAt > blocked.until) blocked = { until: window.resetAt, reason: name };
    }
    return blocked;
  }
}
