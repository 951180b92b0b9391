/** The checks of `verify` that do not depend on the quota. */
import { isDeepStrictEqual } from 'node:util';
import * as v from 'valibot';
import { generateKey } from '../../auth/keys.js';
import { CategorySchema } from '../../categories/schema.js';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../../idempotency/names.js';
import { ROUTES, type Route } from '../../routes.js';
import type { Check, CheckOutcome, VerifyContext } from './check.js';
import { errorProblems, shown, successProblems } from './expect.js';
import type { Answer } from './http.js';

const JSON_BODY = { 'Content-Type': 'application/json' };

/** The challenge of a 401: `Bearer realm="…"`, with `error="invalid_token"` exactly when a key was sent. */
function challengeProblems(answer: Answer, keySent: boolean): string[] {
  if (answer.status !== 401) return [];
  const challenge = answer.headers.get('WWW-Authenticate') ?? '';
  const bearer = /^Bearer realm="[^"]+"/.test(challenge);
  const invalidToken = /\berror="invalid_token"/.test(challenge);
  if (bearer && invalidToken === keySent) return [];
  const expected = keySent ? 'Bearer realm="…", error="invalid_token"' : 'Bearer realm="…" without an error';
  return [`${shown(answer.headers, 'WWW-Authenticate')}, expected ${expected}`];
}

/** Without a key; or with one well-formed and of this stage, so it passes the checksum and is refused for what it is. */
function refusedKey(name: string, keySent: boolean): Check {
  return {
    name,
    async run({ send, stage }) {
      const answer = await send('/categories', keySent ? { key: generateKey(stage) } : {});
      return { problems: [...errorProblems(answer, 401, 'UNAUTHORIZED'), ...challengeProblems(answer, keySent)] };
    },
  };
}

export const missingKey = refusedKey('401 without a key', false);
export const badKey = refusedKey('401 with a bad key', true);

/** The Category a 201 holds, noted among the run's categories (once) for the clean-up; undefined when it holds none. */
function remember(answer: Answer, context: VerifyContext): { id: number; name: string } | undefined {
  const category = answer.status === 201 ? v.safeParse(CategorySchema, answer.body) : undefined;
  if (!category?.success) return undefined;
  const { id, name } = category.output;
  if (!context.created.some((c) => c.id === id)) context.created.push({ id, name });
  return { id, name };
}

/** A new category's answer: the Category it made, with the name sent. */
function createdProblems(answer: Answer, name: string, context: VerifyContext): CheckOutcome {
  const problems = successProblems(answer, 201);
  if (answer.status !== 201) return { problems };
  const category = remember(answer, context);
  if (!category) return { problems: [...problems, `the body is not a Category: ${answer.text.slice(0, 80)}`] };
  if (category.name !== name) problems.push(`the name is "${category.name}", expected "${name}"`);
  return { problems, detail: `category ${category.id} "${category.name}"` };
}

const idempotentCreate = ({ send, apiKey, runName }: VerifyContext) =>
  send('/categories', {
    method: 'POST',
    key: apiKey,
    headers: { ...JSON_BODY, [IDEMPOTENCY_KEY_HEADER]: runName },
    body: JSON.stringify({ name: runName, description: 'Made by petstore verify' }),
  });

export const create: Check = {
  name: 'POST /categories with an Idempotency-Key: 201',
  async run(context) {
    const answer = await idempotentCreate(context);
    const { runName } = context;
    context.firstCreate = answer;
    const outcome = createdProblems(answer, runName, context);
    if (answer.headers.has(REPLAYED_HEADER)) outcome.problems.push(`${shown(answer.headers, REPLAYED_HEADER)} on the first answer`);
    return outcome;
  },
};

export const replay: Check = {
  name: 'POST /categories again with that key: replayed, same body',
  async run(context) {
    const answer = await idempotentCreate(context);
    const { firstCreate } = context;
    // A stage that did not remember the first answer may have created the category now.
    remember(answer, context);
    const problems = successProblems(answer, 201);
    if (answer.status !== 201) return { problems };
    if (answer.headers.get(REPLAYED_HEADER) !== 'true') problems.push(`${shown(answer.headers, REPLAYED_HEADER)}, expected "true"`);
    if (!firstCreate) problems.push('there is no first answer to compare with');
    else if (!isDeepStrictEqual(answer.body, firstCreate.body)) {
      problems.push(`the body differs from the first answer's: ${answer.text.slice(0, 80)} instead of ${firstCreate.text.slice(0, 80)}`);
    }
    return { problems };
  },
};

export const badBody: Check = {
  name: '400 for a bad body',
  async run(context) {
    const { send, apiKey, runName } = context;
    // A field the contract refuses by name. Named after the run all the same, in case a broken stage creates it.
    const name = `${runName}-refused`;
    const answer = await send('/categories', { method: 'POST', key: apiKey, headers: JSON_BODY, body: JSON.stringify({ id: 1, name }) });
    remember(answer, context);
    const problems = errorProblems(answer, 400, 'VALIDATION_FAILED');
    const message = typeof answer.body === 'object' && answer.body !== null && 'message' in answer.body ? String(answer.body.message) : '';
    if (answer.status === 400 && !/\bid\b/.test(message)) problems.push(`the message does not name the field "id": ${message}`);
    return { problems };
  },
};

export const unknownPath: Check = {
  name: '404 for an unknown path',
  async run({ send, apiKey }) {
    return { problems: errorProblems(await send('/no-such-operation', { key: apiKey }), 404, 'NOT_FOUND') };
  },
};

/** An HTTP-date in its preferred format (RFC 9110, 5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

function deprecationHeaderProblems(answer: Answer): string[] {
  const problems: string[] = [];
  const deprecation = answer.headers.get('Deprecation');
  const since = deprecation && /^@\d+$/.test(deprecation) ? Number(deprecation.slice(1)) : undefined;
  if (since === undefined) problems.push(`${shown(answer.headers, 'Deprecation')}, expected @<Unix seconds>`);
  const sunset = answer.headers.get('Sunset') ?? '';
  if (!IMF_FIXDATE.test(sunset)) problems.push(`${shown(answer.headers, 'Sunset')}, expected an HTTP-date`);
  else if (since !== undefined && Date.parse(sunset) / 1000 < since) problems.push(`Sunset (${sunset}) is earlier than Deprecation`);
  if (!/<[^>]+>\s*;\s*rel="deprecation"/.test(answer.headers.get('Link') ?? '')) {
    problems.push(`${shown(answer.headers, 'Link')}, expected <…>; rel="deprecation"`);
  }
  return problems;
}

/** Before its sunset a deprecated operation answers as it always did, after it 410 GONE; both with the three headers. */
function deprecatedOperation(route: Route): Check {
  return {
    name: `deprecated ${route.method} ${route.path}: Deprecation, Sunset, Link`,
    async run({ send, apiKey }) {
      const answer = await send(route.path.replace(/\{[^}]+\}/g, '1'), { key: apiKey });
      const expected =
        answer.status === 410
          ? errorProblems(answer, 410, 'GONE')
          : route.success
            ? successProblems(answer, route.success.status)
            : errorProblems(answer, 501, 'NOT_IMPLEMENTED');
      // An answer of another status (a refused key) is not the operation's: its headers say nothing of it.
      const ownAnswer = answer.status === 410 || answer.status === (route.success?.status ?? 501);
      return { problems: ownAnswer ? [...expected, ...deprecationHeaderProblems(answer)] : expected };
    },
  };
}

// A deprecated POST would need a body of its own to reach its operation; the route table deprecates none.
export const deprecatedOperations: Check[] = ROUTES.filter((route) => route.deprecation && route.method === 'GET').map(deprecatedOperation);
