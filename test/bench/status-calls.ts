/**
 * GET /rate-limit's DynamoDB calls on one warm instance, on the bench's clock (lib/clock.ts), through the real Middy
 * chain: a customer that asks for its status many times within one second and across several seconds (at most one
 * read a second is the goal), a sharded customer (its read is one BatchGetItem), concurrent requests (one read
 * shared), and a banned customer (answered from memory: no call between the checks of the ban every
 * BAN_RECHECK_MS). Every call on the functions' client is counted, as in the work table.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { setClock } from '../../lib/clock.js';
import { BAN_RECHECK_MS, FLUSH_INTERVAL_MS } from '../../lib/rate-limit/refusal-cache.js';
import { invoke } from '../support/events.js';
import type { Call, DynamoMeter } from './dynamo-meter.js';
import { authorizerContext, events, type Handlers } from './work.js';

export interface StatusCallsRow {
  scenario: string;
  requests: number;
  /** Seconds of the bench's clock the requests were spread over. */
  seconds: number;
  calls: number;
  reads: number;
  callsPerRequest: number;
  /** Reads per started second; the goal is at most 1. */
  readsPerSecond: number;
  status: string;
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand']);
const CodeSchema = v.object({ code: v.string() });

function row(scenario: string, requests: number, seconds: number, calls: Call[], statuses: number[]): StatusCallsRow {
  const reads = calls.filter((c) => READS.has(c.command)).length;
  return {
    scenario,
    requests,
    seconds,
    calls: calls.length,
    reads,
    callsPerRequest: calls.length / requests,
    readsPerSecond: reads / Math.max(1, Math.ceil(seconds)),
    status: [...new Set(statuses)].join(', '),
  };
}

export async function statusCalls(h: Handlers, meter: DynamoMeter): Promise<StatusCallsRow[]> {
  // A minute start a little ahead of the real clock, so that DynamoDB Local's TTL never takes what is written.
  const t0 = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
  let now = t0;
  setClock(() => now);
  const rows: StatusCallsRow[] = [];
  try {
    /** `count` requests `everyMs` apart on the bench's clock from `from`, one at a time, every call counted. */
    async function spread(scenario: string, perMinute: number, from: number, count: number, everyMs: number) {
      const e = events(authorizerContext(`bench-status-${randomUUID().slice(0, 8)}`, perMinute, 1_000_000_000));
      meter.take();
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) {
        now = from + i * everyMs;
        statuses.push((await invoke(h.getRateLimitStatus, e.getRateLimitStatus())).status);
      }
      rows.push(row(scenario, count, (count * everyMs) / 1000, meter.take(), statuses));
    }

    await spread('not banned: 100 within one second', 30_000, t0 + 1_000, 100, 10);
    await spread('not banned: 10 a second for 10 s', 30_000, t0 + 3_000, 100, 100);
    await spread('not banned, sharded (90,000 a minute): 10 a second for 10 s', 90_000, t0 + 15_000, 100, 100);

    const together = events(authorizerContext(`bench-status-${randomUUID().slice(0, 8)}`, 30_000, 1_000_000_000));
    now = t0 + 27_000;
    meter.take();
    const answers = await Promise.all(Array.from({ length: 20 }, () => invoke(h.getRateLimitStatus, together.getRateLimitStatus())));
    rows.push(
      row(
        'not banned: 20 at once',
        20,
        0,
        meter.take(),
        answers.map((a) => a.status),
      ),
    );

    // Banned (10 refusals in a minute against 1 a minute), learned by listCategories on this instance.
    const banned = events(authorizerContext(`bench-status-${randomUUID().slice(0, 8)}`, 1, 1_000_000_000));
    now = t0 + 30_000;
    let code = '';
    for (let sent = 0; code !== 'API_KEY_TEMPORARILY_BANNED'; sent++) {
      if (sent > 100) throw new Error('the bench customer was never banned');
      const answer = await invoke(h.listCategories, banned.listCategories());
      const parsed = v.safeParse(CodeSchema, answer.body);
      code = parsed.success ? parsed.output.code : '';
    }
    // Refusals not yet written are written by a timer; let it run before counting.
    await sleep(FLUSH_INTERVAL_MS + 500);
    const learnedAt = now;
    const statusDuringBan = async (scenario: string, from: number, count: number, everyMs: number) => {
      meter.take();
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) {
        now = from + i * everyMs;
        statuses.push((await invoke(h.getRateLimitStatus, banned.getRateLimitStatus())).status);
      }
      rows.push(row(scenario, count, (count * everyMs) / 1000, meter.take(), statuses));
    };
    await statusDuringBan(
      `banned: 100 within ${BAN_RECHECK_MS / 1000} s (before the ban's check)`,
      learnedAt,
      100,
      (BAN_RECHECK_MS - 100) / 100,
    );
    await statusDuringBan(`banned: 10 a second for 30 s (a check every ${BAN_RECHECK_MS / 1000} s)`, learnedAt + BAN_RECHECK_MS, 300, 100);
  } finally {
    setClock(Date.now);
  }
  return rows;
}

/** The goals of the rows above. */
export function statusGoals(rows: StatusCallsRow[]) {
  const notBanned = rows.filter((r) => r.scenario.startsWith('not banned'));
  const worst = Math.max(...notBanned.filter((r) => r.seconds > 0).map((r) => r.readsPerSecond));
  const atOnce = rows.find((r) => r.scenario.includes('at once'));
  const beforeCheck = rows.find((r) => r.scenario.startsWith('banned') && r.scenario.includes('before'));
  const checks = rows.find((r) => r.scenario.startsWith('banned') && r.scenario.includes('30 s'));
  return [
    {
      goal: 'GET /rate-limit, not banned: at most 1 read a second per customer per instance',
      met: worst <= 1 && (atOnce?.reads ?? 99) <= 1,
      figure: `worst ${worst} read(s) a second; ${atOnce?.reads} read(s) for 20 at once`,
    },
    {
      goal: 'GET /rate-limit during a ban: 0 DynamoDB calls (but the ban check)',
      met: beforeCheck?.calls === 0 && (checks?.calls ?? 99) <= Math.ceil(30_000 / BAN_RECHECK_MS),
      figure: `${beforeCheck?.calls} calls for ${beforeCheck?.requests} requests; ${checks?.calls} calls in 30 s`,
    },
  ];
}
