/**
 * Revocation racing with traffic, with the local authorizer cache off (TTL 0, the local default): once a revoke
 * has completed, every request started after it is refused with 401, while requests already in flight may finish
 * either way but never with a 5xx. Keys are revoked in parallel, one of them twice at once, and another
 * customer's traffic is not disturbed. Refused requests are not counted against the plan.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { admittedSince } from '../support/admitted.js';
import { type Answer, contractViolations, send } from '../support/contract-answer.js';
import { addKey, makeCustomer, testAuthStore, testDb } from '../support/customers.js';
import { useGateway } from '../support/http.js';
import { sleep } from '../support/sleep.js';

const { url } = useGateway();

interface Sent {
  key: string;
  started: number;
  finished: number;
  answer: Answer;
}

describe('revocation while requests are in flight', () => {
  it('after the revokes complete, every request started with a revoked key gets 401; in-flight ones never a 5xx', async () => {
    const runStart = Date.now();
    const victim = await makeCustomer('enterprise');
    const keys = [victim, await addKey(victim.customerId), await addKey(victim.customerId)];
    const bystander = await makeCustomer('enterprise');
    const log: Sent[] = [];
    let running = true;
    const worker = async (authorization: string) => {
      while (running) {
        const started = performance.now();
        const answer = await send(`${url()}/categories`, { headers: { Authorization: authorization } });
        log.push({ key: authorization, started, finished: performance.now(), answer });
      }
    };
    const workers = [...keys, ...keys, bystander].map((k) => worker(k.authorization));
    const since = (t: number) => log.filter((s) => s.started >= t).length;
    while (log.length < 30) await sleep(20);

    // All three keys at once, and the first one twice: revoking is idempotent and races nothing into a 5xx.
    const revokeStarted = performance.now();
    const revocations = await Promise.all([...keys.map((k) => testAuthStore.revokeKey(k.keyId)), testAuthStore.revokeKey(victim.keyId)]);
    const revokedAt = performance.now();
    expect(revocations.map((r) => r.status)).toEqual(['revoked', 'revoked', 'revoked', 'revoked']);
    while (since(revokedAt) < 40) await sleep(20);
    running = false;
    await Promise.all(workers);

    for (const sent of log) expect(contractViolations(sent.answer), JSON.stringify(sent)).toEqual([]);
    const revoked = new Set(keys.map((k) => k.authorization));
    const mine = log.filter((s) => revoked.has(s.key));
    const after = mine.filter((s) => s.started >= revokedAt);
    expect(after.length).toBeGreaterThan(10);
    for (const sent of after) {
      expect(sent.answer.status).toBe(401);
      expect(sent.answer.body).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) });
    }
    const inFlight = mine.filter((s) => s.started < revokedAt && s.finished >= revokeStarted);
    for (const sent of inFlight) expect([200, 401]).toContain(sent.answer.status);
    // Requests that finished before the revokes began were served.
    expect(mine.filter((s) => s.finished < revokeStarted).every((s) => s.answer.status === 200)).toBe(true);

    // The other customer was served throughout.
    const others = log.filter((s) => s.key === bystander.authorization);
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((s) => s.answer.status === 200)).toBe(true);

    // Only admitted requests counted: every 200 once, no 401.
    const { Item } = await testDb.send(
      new GetCommand({ TableName: process.env.COUNTERS_TABLE, Key: { customerId: victim.customerId }, ConsistentRead: true }),
    );
    expect(admittedSince(Item, runStart)).toBe(mine.filter((s) => s.answer.status === 200).length);
  });
});
