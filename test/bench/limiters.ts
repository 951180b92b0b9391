/**
 * Our rate limiter beside rate-limiter-flexible's DynamoDB store (peer-limiter.ts) on the same DynamoDB Local in
 * one run: the DynamoDB calls, write units, sequential round trips and latency of an admitted request, a refused
 * one (on an instance that has seen the refusal, and on one that has not), one during a ban, a 600-request burst
 * against 60 a minute from one process and from four, and a new customer's first burst.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, type DynamoDB, type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient, createDynamoClient } from '../../lib/dynamo/client.js';
import type { Limits } from '../../lib/plans.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { sleep } from '../support/sleep.js';
import type { BurstOrder, BurstReport } from './burst-worker.js';
import { type Call, DynamoMeter, percentile, sequentialRoundTrips } from './dynamo-meter.js';
import { type Decider, type Decision, oursInstance, PEER_TABLE, peerClient, peerInstance, peerMinuteKey } from './peer-limiter.js';

type Side = 'ours' | 'peer';
const FREE: Limits = { perMinute: 60, perDay: 1_000 };
const ROOMY: Limits = { perMinute: 20_000, perDay: 1_000_000_000 };
/** Used up after 250 requests, with a ban threshold (250 refusals) the refusal samples never reach. */
const USED_UP: Limits = { perMinute: 250, perDay: 100_000 };

/** Waits for the next minute when fewer than `seconds` are left in this one: a window must not end mid-measure. */
async function roomInMinute(seconds: number): Promise<void> {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < seconds) await sleep(left * 1000 + 100);
}

export interface PerRequest {
  calls: number;
  writeUnits: number;
  sequential: number;
  ms: number;
}

export interface Burst {
  side: Side;
  scenario: string;
  round: number;
  admitted: number;
  refused: number;
  errors: number;
  calls: number;
  writeUnits: number;
}

export interface LimiterComparison {
  perRequest: Record<string, Record<Side, PerRequest[]>>;
  bursts: Burst[];
}

const summary = (samples: PerRequest[]) => ({
  calls: percentile(
    samples.map((s) => s.calls),
    50,
  ),
  maxCalls: Math.max(...samples.map((s) => s.calls)),
  writeUnits: percentile(
    samples.map((s) => s.writeUnits),
    50,
  ),
  maxWriteUnits: Math.max(...samples.map((s) => s.writeUnits)),
  sequential: percentile(
    samples.map((s) => s.sequential),
    50,
  ),
  p50Ms: percentile(
    samples.map((s) => s.ms),
    50,
  ),
});
export type Summary = ReturnType<typeof summary>;

export async function compareLimiters(options: {
  endpoint: string;
  countersTable: string;
  admin: DynamoDBClient;
  samples: number;
  rounds: number;
}): Promise<{ raw: LimiterComparison; rows: Record<string, string | number>[]; summaries: Record<string, Record<Side, Summary>> }> {
  const { endpoint, countersTable, admin, samples, rounds } = options;
  await admin
    .send(
      new CreateTableCommand({
        TableName: PEER_TABLE,
        AttributeDefinitions: [{ AttributeName: 'key', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'key', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    )
    .catch((error: unknown) => {
      if (!(error instanceof Error && error.name === 'ResourceInUseException')) throw error;
    });

  // A client of its own, metered before its first call: the count's UpdateItem resolves the middleware stack on a
  // client's first call (hotClient, lib/dynamo/client.ts), and the warm sections have called the process's client.
  const ours = createDocumentClient(createDynamoClient(endpoint));
  const oursMeter = new DynamoMeter();
  oursMeter.attach(ours);
  const peer: DynamoDB = peerClient(endpoint);
  const peerMeter = new DynamoMeter();
  peerMeter.attach(peer);
  const meters: Record<Side, DynamoMeter> = { ours: oursMeter, peer: peerMeter };
  const instance = (side: Side): Decider => (side === 'ours' ? oursInstance(countersTable, ours) : peerInstance(peer));
  const customer = (what: string) => `bench-${what}-${randomUUID().slice(0, 8)}`;
  const sides: Side[] = ['ours', 'peer'];

  async function measure(side: Side, decide: Decider, customerId: string, limits: Limits, expect: Decision): Promise<PerRequest> {
    meters[side].take();
    const start = performance.now();
    const decision = await decide(customerId, limits);
    const ms = performance.now() - start;
    const calls: Call[] = meters[side].take();
    if (decision !== expect) throw new Error(`${side}: expected ${expect}, got ${decision}`);
    return { calls: calls.length, writeUnits: calls.reduce((s, c) => s + c.write, 0), sequential: sequentialRoundTrips(calls), ms };
  }

  const perRequest: LimiterComparison['perRequest'] = {};
  const record = (scenario: string, side: Side, sample: PerRequest) => {
    perRequest[scenario] ??= { ours: [], peer: [] };
    perRequest[scenario][side].push(sample);
  };

  for (const side of sides) {
    // Admitted: a customer whose windows exist (its first request made them), far from its limits.
    const warm = instance(side);
    const roomy = customer('admitted');
    await warm(roomy, ROOMY);
    for (let i = 0; i < samples; i++) record('admitted', side, await measure(side, warm, roomy, ROOMY, 'admitted'));

    // Refused, on the instance that saw the refusal, then on fresh instances (another Lambda instance each).
    await roomInMinute(25);
    const refusedId = customer('refused');
    await Promise.all(Array.from({ length: USED_UP.perMinute }, () => warm(refusedId, USED_UP)));
    await warm(refusedId, USED_UP);
    for (let i = 0; i < samples; i++)
      record('refused, instance has seen the refusal', side, await measure(side, warm, refusedId, USED_UP, 'limit'));
    for (let i = 0; i < Math.min(samples, 20); i++) {
      record('refused, instance has not seen it', side, await measure(side, instance(side), refusedId, USED_UP, 'limit'));
    }
  }
  meters.ours.take();

  // During a ban (ours only: the peer's setup has no ban). Ten refusals of a 1-a-minute customer start one.
  const banned = customer('banned');
  const banning = instance('ours');
  const tight = { perMinute: 1, perDay: 1_000 };
  for (let i = 0; i < 11; i++) await banning(banned, tight);
  if ((await banning(banned, tight)) !== 'banned') throw new Error('ours: the ban did not start');
  for (let i = 0; i < samples; i++)
    record('refused during a ban, instance has seen it', 'ours', await measure('ours', banning, banned, tight, 'banned'));
  for (let i = 0; i < Math.min(samples, 20); i++) {
    record('refused during a ban, instance has not seen it', 'ours', await measure('ours', instance('ours'), banned, tight, 'banned'));
  }

  // Bursts of 600 concurrent requests against 60 a minute.
  const bursts: Burst[] = [];
  const settle = () => sleep(1_200); // batched refusal counts are part of the cost
  async function burstInProcess(side: Side, scenario: string, round: number, customerId: string): Promise<void> {
    const decide = instance(side);
    await roomInMinute(8);
    meters[side].take();
    const outcomes = await Promise.all(Array.from({ length: 600 }, () => decide(customerId, FREE).catch(() => 'error' as const)));
    await settle();
    const calls = meters[side].take();
    bursts.push({
      side,
      scenario,
      round,
      admitted: outcomes.filter((o) => o === 'admitted').length,
      refused: outcomes.filter((o) => o === 'limit' || o === 'banned').length,
      errors: outcomes.filter((o) => o === 'error').length,
      calls: calls.length,
      writeUnits: calls.reduce((s, c) => s + c.write, 0),
    });
  }

  /** A customer seen earlier today: its day counted one request, its minute window is an earlier one. */
  async function existing(side: Side): Promise<string> {
    const id = customer('existing');
    if (side === 'ours') {
      const earlier = Date.now() - 60_000;
      if (new Date(earlier).getUTCDate() === new Date().getUTCDate()) {
        await dynamoRateLimiter(ours, countersTable, { banSeconds: 900 }).consume(id, FREE, earlier);
      }
    } else {
      await instance('peer')(id, FREE); // its day window, and a minute window set up below as ended
      await peer.send(
        new PutItemCommand({
          TableName: PEER_TABLE,
          Item: { key: { S: peerMinuteKey(id, FREE) }, points: { N: '1' }, expire: { N: String(Date.now() / 1000 - 1) } },
        }),
      );
    }
    meters[side].take();
    return id;
  }

  async function burstInFourProcesses(side: Side, round: number, customerId: string): Promise<void> {
    const children: ChildProcess[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        children.push(
          fork(fileURLToPath(new URL('./burst-worker.ts', import.meta.url)), [], {
            execArgv: ['--import', 'tsx'],
            env: { ...process.env, LOG_LEVEL: 'WARN' },
            stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
          }),
        );
      }
      const order: BurstOrder = { side, customerId, limits: FREE, requests: 150, endpoint, countersTable };
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve, reject) => {
              child.once('message', () => resolve());
              child.once('exit', (code) => reject(new Error(`burst worker exited with ${code}`)));
              child.send({ prepare: order });
            }),
        ),
      );
      await roomInMinute(8);
      const reports = await Promise.all(
        children.map(
          (child) =>
            new Promise<BurstReport>((resolve) => {
              child.once('message', (message: { report: BurstReport }) => resolve(message.report));
              child.send({ go: true });
            }),
        ),
      );
      const sum = (pick: (r: BurstReport) => number) => reports.reduce((s, r) => s + pick(r), 0);
      bursts.push({
        side,
        scenario: '600 concurrent against 60/min, four processes (150 each)',
        round,
        admitted: sum((r) => r.decisions.admitted),
        refused: sum((r) => r.decisions.limit + r.decisions.banned),
        errors: sum((r) => r.decisions.error),
        calls: sum((r) => r.calls),
        writeUnits: sum((r) => r.writeUnits),
      });
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill();
    }
  }

  for (let round = 1; round <= rounds; round++) {
    for (const side of sides) {
      await burstInProcess(side, '600 concurrent against 60/min, one process, customer seen earlier today', round, await existing(side));
      await burstInProcess(side, "600 concurrent against 60/min, one process, a new customer's first burst", round, customer('new'));
      await burstInFourProcesses(side, round, await existing(side));
    }
  }

  // The side-by-side table.
  const summaries: Record<string, Record<Side, Summary>> = {};
  for (const [scenario, bySide] of Object.entries(perRequest)) {
    summaries[scenario] = { ours: summary(bySide.ours), peer: bySide.peer.length ? summary(bySide.peer) : summary([]) };
  }
  const rows: Record<string, string | number>[] = [];
  const fmt = (s: Summary | undefined) =>
    !s || !Number.isFinite(s.calls)
      ? 'no ban in its setup'
      : `${s.calls} / ${s.writeUnits} / ${s.sequential}${s.maxCalls > s.calls ? ` (max ${s.maxCalls} calls)` : ''}`;
  for (const [scenario, s] of Object.entries(summaries)) {
    rows.push({
      measure: `${scenario}: calls / write units / sequential round trips (median)`,
      ours: fmt(s.ours),
      peer: fmt(s.peer),
      'ours/peer p50 latency': Number.isFinite(s.peer.p50Ms) ? Number((s.ours.p50Ms / s.peer.p50Ms).toFixed(2)) : '',
    });
  }
  const burstScenarios = [...new Set(bursts.map((b) => b.scenario))];
  for (const scenario of burstScenarios) {
    const of = (side: Side) => bursts.filter((b) => b.scenario === scenario && b.side === side);
    const describe = (list: Burst[]) =>
      `${Math.max(...list.map((b) => b.calls))} calls, ${Math.max(...list.map((b) => b.writeUnits))} WCU; admitted ${list.map((b) => b.admitted).join(', ')}${list.some((b) => b.errors) ? `; errors ${list.map((b) => b.errors).join(', ')}` : ''}`;
    rows.push({
      measure: `${scenario} (worst of ${rounds} round(s))`,
      ours: describe(of('ours')),
      peer: describe(of('peer')),
      'ours/peer p50 latency': '',
    });
  }
  return { raw: { perRequest, bursts }, rows, summaries };
}

/** The rate limiter's goals, measured. */
export function limiterGoals(result: Awaited<ReturnType<typeof compareLimiters>>) {
  const { summaries, raw } = result;
  const ours = (scenario: string) => raw.bursts.filter((b) => b.side === 'ours' && b.scenario.startsWith(scenario));
  const oneProcess = ours('600 concurrent against 60/min, one process, customer seen');
  const newCustomer = ours("600 concurrent against 60/min, one process, a new customer's");
  const four = ours('600 concurrent against 60/min, four processes');
  const admitted = summaries.admitted?.ours;
  const warm = summaries['refused, instance has seen the refusal']?.ours;
  const cold = summaries['refused, instance has not seen it']?.ours;
  const worst = (list: Burst[]) => Math.max(...list.map((b) => b.calls));
  return [
    {
      goal: '600 concurrent vs 60/min, one process: at most 700 DynamoDB calls',
      met: worst(oneProcess) <= 700,
      figure: `${worst(oneProcess)} calls (worst round)`,
    },
    {
      goal: "the same, a new customer's first burst: at most 750 calls",
      met: worst(newCustomer) <= 750,
      figure: `${worst(newCustomer)} calls (worst round)`,
    },
    {
      goal: 'refused on an instance that has seen the refusal: 0 calls',
      met: warm?.calls === 0,
      figure: `median ${warm?.calls} calls; the batched count: at most 1 write per customer per second (max in one request ${warm?.maxCalls})`,
    },
    {
      goal: 'refused elsewhere: at most 1 write',
      met: (cold?.maxWriteUnits ?? 99) <= 1,
      figure: `${cold?.maxCalls} call(s), ${cold?.maxWriteUnits} WCU at most`,
    },
    {
      goal: 'admitted: 1 call, 1 write unit, 1 sequential round trip',
      met: admitted?.maxCalls === 1 && admitted.maxWriteUnits === 1 && admitted.sequential === 1,
      figure: `${admitted?.maxCalls} call(s), ${admitted?.maxWriteUnits} WCU, ${admitted?.sequential} round trip(s)`,
    },
    {
      goal: 'exactness: 60 admitted of 600 in every round, one process and four',
      met: [...oneProcess, ...newCustomer, ...four].every((b) => b.admitted === 60 && b.errors === 0),
      figure: `admitted ${[...oneProcess, ...newCustomer, ...four].map((b) => b.admitted).join(', ')}`,
    },
  ];
}
