/**
 * DynamoDB stopped in the middle of a run and started again, under steady traffic through one local gateway.
 * While it is down every request gets 503 SERVICE_UNAVAILABLE with Retry-After (never a hang, a crash or another
 * 5xx); the same gateway recovers by itself once DynamoDB is back; and no category is half-written or lost.
 *
 * This file runs its own DynamoDB Local (data on disk, so it survives the restart, on a port of its own) so that
 * stopping it disturbs no other test file. The environment points at it before the gateway and the handlers are
 * imported, which is why they are imported inside beforeAll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoLocal, startDynamoLocal } from '../../infra/local/dynamodb-local.js';
import { ensureTables } from '../../infra/local/tables.js';
import { authAdmin } from '../../lib/auth/admin.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import { createCategory } from '../../lib/routes.js';
import { admittedSince } from '../support/admitted.js';
import { successBody } from '../support/answer.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { type Answer, CONTRACT_STATUSES, contractViolations, send } from '../support/contract-answer.js';
import { testTables } from '../support/environment.js';
import { captureLogs } from '../support/logs.js';
import { runPort } from '../support/ports.js';
import { sleep } from '../support/sleep.js';

const dataDir = mkdtempSync(join(tmpdir(), 'petstore-outage-'));
const tables = testTables();
const ALLOWED = new Set([...CONTRACT_STATUSES, 503]);
/** The item at `i`, counting round and round. */
const roundRobin = <T>(items: readonly T[], i: number): T => {
  const item = items[i % items.length];
  if (item === undefined) throw new Error('nothing to choose from');
  return item;
};

let dynamoLocal: DynamoLocal;
let gateway: { url: string; server: import('node:http').Server; close(): Promise<void> };
const keys: { customerId: string; authorization: string }[] = [];

/** A fresh client per use: it must not keep sockets to a DynamoDB Local that is about to be stopped. */
function adminDb() {
  const client = createDynamoClient(dynamoLocal.endpoint);
  return { db: DynamoDBDocumentClient.from(client), destroy: () => client.destroy() };
}

/** What the service logged; every refused request is logged (one line each), which would flood the output. */
let logged: string[] = [];

beforeAll(async () => {
  logged = captureLogs().lines;
  dynamoLocal = await startDynamoLocal({ port: await runPort(), dataDir });
  process.env.DYNAMODB_ENDPOINT = dynamoLocal.endpoint;
  const { db, destroy } = adminDb();
  await ensureTables(createDynamoClient(dynamoLocal.endpoint), tables);
  const auth = authAdmin(db, { customers: tables.CUSTOMERS_TABLE, keys: tables.KEYS_TABLE });
  for (const customerId of ['outage-a', 'outage-b']) {
    await auth.setPlan(customerId, 'enterprise', { perMinute: 20_000, perDay: 1_000_000_000 });
    const { apiKey } = await auth.createKey(customerId, 'production');
    keys.push({ customerId, authorization: `Bearer ${apiKey}` });
  }
  destroy();
  const { startGateway } = await import('../../infra/local/gateway.js');
  gateway = await startGateway(0);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await dynamoLocal?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

type Op = 'create' | 'create-shared' | 'list' | 'rate-limit';
interface Sent {
  op: Op;
  name?: string;
  customerId: string;
  started: number;
  finished: number;
  answer: Answer;
}

function request(op: Op, key: { customerId: string; authorization: string }, name?: string): Promise<Sent> {
  const started = performance.now();
  const headers = { Authorization: key.authorization, 'Content-Type': 'application/json' };
  const init: RequestInit =
    op === 'create' || op === 'create-shared' ? { method: 'POST', headers, body: JSON.stringify({ name }) } : { headers };
  const path = op === 'rate-limit' ? '/rate-limit' : '/categories';
  return send(`${gateway.url}${path}`, init).then((answer) => ({
    op,
    customerId: key.customerId,
    started,
    finished: performance.now(),
    answer,
    ...(name ? { name } : {}),
  }));
}

describe('DynamoDB stopped in the middle of a run, then started again', () => {
  const log: Sent[] = [];
  const probes: Sent[] = [];
  let downAt = 0;
  let restartAt = 0;
  let upAt = 0;

  /** When the traffic began: the counters are read from that UTC day on. */
  const runStart = Date.now();

  beforeAll(async () => {
    let running = true;
    const ops: Op[] = ['create', 'list', 'rate-limit', 'create-shared'];
    const workers = [0, 1, 2, 3].map(async (w) => {
      for (let i = 0; running; i++) {
        const op = roundRobin(ops, i + w);
        const name = op === 'create' ? `outage w${w} #${i}` : op === 'create-shared' ? 'Shared' : undefined;
        log.push(await request(op, roundRobin(keys, w), name));
        await sleep(10);
      }
    });
    const since = (t: number) => log.filter((s) => s.started >= t).length;
    const waitFor = async (condition: () => boolean) => {
      while (!condition()) await sleep(50);
    };

    await waitFor(() => log.length >= 40);
    await dynamoLocal.stop();
    downAt = performance.now();
    // Requests made while it is down, one of each kind, besides the workers' steady traffic.
    const kinds: [Op, string?][] = [['list'], ['create', 'while down'], ['rate-limit']];
    for (const [op, name] of kinds) probes.push(await request(op, roundRobin(keys, 0), name));
    await waitFor(() => since(downAt) >= 12);
    restartAt = performance.now();
    dynamoLocal = await startDynamoLocal({ port: dynamoLocal.port, dataDir });
    upAt = performance.now();
    await waitFor(() => since(upAt) >= 40);
    running = false;
    await Promise.all(workers);
  }, 180_000);

  it('every answer, before, during and after the outage, keeps the contract; none is a 5xx other than 503', () => {
    expect(log.length).toBeGreaterThan(90);
    for (const sent of [...log, ...probes]) expect(contractViolations(sent.answer, ALLOWED), JSON.stringify(sent)).toEqual([]);
    const histogram = Object.fromEntries(
      [...new Set(log.map((s) => s.answer.status))].map((s) => [s, log.filter((x) => x.answer.status === s).length]),
    );
    console.log(`outage run: ${log.length + probes.length} requests, statuses ${JSON.stringify(histogram)}, ${logged.length} log lines`);
  });

  it('while DynamoDB is down, every request gets 503 SERVICE_UNAVAILABLE with Retry-After', () => {
    const duringOutage = [...probes, ...log.filter((s) => s.started >= downAt && s.finished <= restartAt)];
    expect(duringOutage.length).toBeGreaterThanOrEqual(12);
    for (const sent of duringOutage) {
      expect(sent.answer.status, JSON.stringify(sent)).toBe(503);
      expect(sent.answer.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(Number(sent.answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(sent.answer.text).not.toMatch(/ECONN|127\.0\.0\.1|socket|table/i);
    }
  });

  it('the same gateway recovers by itself: every request started after the restart is served', () => {
    expect(gateway.server.listening).toBe(true);
    const after = log.filter((s) => s.started >= upAt);
    expect(after.length).toBeGreaterThanOrEqual(40);
    for (const sent of after) expect([200, 201, 409], JSON.stringify(sent)).toContain(sent.answer.status);
    expect(after.filter((s) => s.answer.status === 201).length).toBeGreaterThan(0);
  });

  it('no category is half-written or lost: every 201 is stored, and nothing else but creates whose answer was lost', async () => {
    const { db, destroy } = adminDb();
    const table = await categoryIntegrity(db, tables.CATEGORIES_TABLE);
    expect(table.problems).toEqual([]);
    const creates = [...log, ...probes].filter((s) => s.op === 'create' || s.op === 'create-shared');
    const answered201 = creates.filter((s) => s.answer.status === 201).map((s) => successBody(createCategory, s.answer));
    const storedNames = new Set(table.categories.map((c) => c.name));
    for (const category of answered201) expect(table.categories).toContainEqual(category);
    // A create whose transaction committed while the connection dropped may have been answered 503: the client
    // cannot know, and retrying it gets a 409. Anything stored must at least be such a create.
    const unanswered = table.categories.filter((c) => !answered201.some((a) => a.id === c.id));
    const refusedNames = new Set(creates.filter((s) => s.answer.status === 503).map((s) => s.name));
    for (const category of unanswered) expect(refusedNames).toContain(category.name);
    expect(storedNames.has('while down')).toBe(false);
    console.log(`outage run: ${answered201.length} categories created, ${unanswered.length} committed with a lost answer, data lost: 0`);

    // The rate-limit counters: every admitted request counted once; a 503 may or may not have been counted.
    for (const { customerId } of keys) {
      const mine = log.filter((s) => s.customerId === customerId && s.op !== 'rate-limit');
      const admitted = mine.filter((s) => ![401, 429, 503].includes(s.answer.status)).length;
      const unavailable = mine.filter((s) => s.answer.status === 503).length;
      const { Item } = await db.send(new GetCommand({ TableName: tables.COUNTERS_TABLE, Key: { customerId }, ConsistentRead: true }));
      const counted = admittedSince(Item, runStart);
      expect(counted).toBeGreaterThanOrEqual(admitted);
      expect(counted).toBeLessThanOrEqual(admitted + unavailable);
    }
    destroy();
  });
});
