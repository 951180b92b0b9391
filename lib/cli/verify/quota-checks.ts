/** The checks of `verify` about the quota: an admitted request's headers, the 429 of a used-up minute, GET /rate-limit. */
import * as v from 'valibot';
import { CategorySchema } from '../../categories/schema.js';
import type { Limits } from '../../plans.js';
import { RateLimitStatusSchema } from '../../rate-limit/schema.js';
import type { Check } from './check.js';
import { errorProblems, retryAfterProblems, said, shown, successProblems, wholeNumberHeader } from './expect.js';
import type { Answer } from './http.js';

function noStoreProblems(answer: Answer): string[] {
  return /\bno-store\b/.test(answer.headers.get('Cache-Control') ?? '')
    ? []
    : [`${shown(answer.headers, 'Cache-Control')}, expected no-store`];
}

/** The value of `field` for the window `name` in a RateLimit or RateLimit-Policy header (`"minute";r=9;t=41`). */
function windowField(header: string, name: string, field: string): number | undefined {
  const item = header.split(',').find((part) => part.trim().startsWith(`"${name}";`));
  const match = item && new RegExp(`;\\s*${field}=(\\d+)`).exec(item);
  return match ? Number(match[1]) : undefined;
}

/** X-RateLimit-* describe the minute; RateLimit-Policy names both windows, RateLimit what is left of each. */
function admittedHeaderProblems(answer: Answer, limits: Limits): string[] {
  const problems: string[] = [];
  const limit = wholeNumberHeader(answer, 'X-RateLimit-Limit', problems);
  const remaining = wholeNumberHeader(answer, 'X-RateLimit-Remaining', problems);
  const reset = wholeNumberHeader(answer, 'X-RateLimit-Reset', problems);
  if (limit !== undefined && limit !== limits.perMinute)
    problems.push(`X-RateLimit-Limit is ${limit}, expected the per-minute limit ${limits.perMinute}`);
  if (remaining !== undefined && remaining >= limits.perMinute)
    problems.push(`X-RateLimit-Remaining is ${remaining} after a request counted`);
  if (reset !== undefined && (reset === 0 || reset % 60 !== 0)) problems.push(`X-RateLimit-Reset is ${reset}, not the end of a UTC minute`);
  const policy = answer.headers.get('RateLimit-Policy') ?? '';
  const policyFields = ['minute', 'day'].flatMap((window) => [windowField(policy, window, 'q'), windowField(policy, window, 'w')]);
  if (policyFields.join() !== [limits.perMinute, 60, limits.perDay, 86_400].join()) {
    problems.push(
      `${shown(answer.headers, 'RateLimit-Policy')}, expected "minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`,
    );
  }
  const state = answer.headers.get('RateLimit') ?? '';
  const minuteLeft = windowField(state, 'minute', 'r');
  const dayLeft = windowField(state, 'day', 'r');
  const minuteSeconds = windowField(state, 'minute', 't');
  if (minuteLeft === undefined || dayLeft === undefined || minuteSeconds === undefined || windowField(state, 'day', 't') === undefined) {
    problems.push(`${shown(answer.headers, 'RateLimit')}, expected "minute";r=…;t=…, "day";r=…;t=…`);
  } else {
    if (remaining !== undefined && minuteLeft !== remaining)
      problems.push(`RateLimit says ${minuteLeft} left in the minute, X-RateLimit-Remaining ${remaining}`);
    if (minuteSeconds > 60) problems.push(`RateLimit says the minute resets in ${minuteSeconds} seconds`);
    if (dayLeft >= limits.perDay) problems.push(`RateLimit says ${dayLeft} left in the day after a request counted`);
  }
  return problems;
}

export const listCategories: Check = {
  name: 'GET /categories: 200 with rate-limit and cache headers',
  async run({ send, apiKey, limits }) {
    const answer = await send('/categories', { key: apiKey });
    const problems = successProblems(answer, 200);
    if (answer.status !== 200) return { problems };
    const categories = v.safeParse(v.array(CategorySchema), answer.body);
    if (!categories.success) problems.push(`the body is not an array of Category: ${answer.text.slice(0, 80)}`);
    else if (categories.output.some((c, i, all) => i > 0 && c.id <= (all[i - 1]?.id ?? 0)))
      problems.push('the categories are not in ascending id order');
    return { problems: [...problems, ...noStoreProblems(answer), ...admittedHeaderProblems(answer, limits)] };
  },
};

export const minuteUsedUp: Check = {
  name: '429 RATE_LIMIT_EXCEEDED once the minute is used up',
  async run(context) {
    const { send, apiKey, limits } = context;
    // Enough for a minute, and the next if the first ends meanwhile; one refusal is far below the ban's threshold.
    const most = 2 * limits.perMinute + 2;
    for (let sent = 1; sent <= most; sent++) {
      const answer = await send('/categories', { key: apiKey });
      if (answer.status === 200) continue;
      if (answer.status !== 429) return { problems: [`request ${sent} got ${answer.status}${said(answer)}, expected 200 until a 429`] };
      const problems = [...errorProblems(answer, 429, 'RATE_LIMIT_EXCEEDED'), ...retryAfterProblems(answer, 60)];
      if (answer.headers.get('X-RateLimit-Remaining') !== '0')
        problems.push(`${shown(answer.headers, 'X-RateLimit-Remaining')}, expected 0`);
      const reset = wholeNumberHeader(answer, 'X-RateLimit-Reset', problems);
      if (reset !== undefined && (reset === 0 || reset % 60 !== 0))
        problems.push(`X-RateLimit-Reset is ${reset}, not the end of a UTC minute`);
      context.usedUpMinuteReset = reset;
      return { problems, detail: `after ${sent} requests` };
    }
    return { problems: [`no 429 after ${most} requests, with a limit of ${limits.perMinute} a minute`] };
  },
};

export const rateLimitStatus: Check = {
  name: 'GET /rate-limit: 200, plan and windows, no quota used',
  async run({ send, apiKey, customerId, limits, usedUpMinuteReset }) {
    const answers = [await send('/rate-limit', { key: apiKey }), await send('/rate-limit', { key: apiKey })];
    const problems: string[] = [];
    const statuses = [];
    for (const answer of answers) {
      problems.push(...successProblems(answer, 200), ...noStoreProblems(answer));
      const status = answer.status === 200 ? v.safeParse(RateLimitStatusSchema, answer.body) : undefined;
      if (status && !status.success) problems.push(`the body is not the rate-limit status: ${answer.text.slice(0, 80)}`);
      if (status?.success) statuses.push(status.output);
    }
    const [first, second] = statuses;
    if (!first || !second) return { problems };
    const expected = { customerId, plan: 'enterprise', minute: limits.perMinute, day: limits.perDay, banned: false };
    const got = {
      customerId: first.customerId,
      plan: first.plan,
      minute: first.minute.limit,
      day: first.day.limit,
      banned: first.ban.active,
    };
    if (JSON.stringify(got) !== JSON.stringify(expected))
      problems.push(`it says ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    if (first.minute.reset === usedUpMinuteReset && first.minute.remaining !== 0) {
      problems.push(`it says ${first.minute.remaining} left in the minute the 429 check used up`);
    }
    if (first.day.reset === second.day.reset && second.day.remaining !== first.day.remaining) {
      problems.push(`the day's remaining went from ${first.day.remaining} to ${second.day.remaining} between two calls: it spends quota`);
    }
    return { problems };
  },
};
