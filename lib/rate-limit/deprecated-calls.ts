/**
 * Calls to deprecated operations per customer, for the CLI's `usage` (the API does not show them). The admitting
 * write counts them on its counter item (counter-item.ts), so they live as long as it; reading adds up a sharded
 * customer's items.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getItems } from '../dynamo/batch-get.js';
import { CALL_COUNT_NAME, lastCallName } from './counter-item.js';
import { counterKeys } from './shards.js';

export type DeprecatedCalls = Record<string, { count: number; last: string }>;

/**
 * The earlier encoding: an item of its own without a TTL, `count_<operationId>` and `last_<operationId>` (an ISO
 * time); what it holds is added in, so an update loses none of the calls counted before it.
 */
const legacyKey = (customerId: string) => `deprecated#${customerId}`;
const LEGACY_COUNT_NAME = /^count_(.+)$/;

export function deprecatedCallStore(db: DynamoDBDocumentClient, table: string) {
  /** Every item that may hold the customer's calls (the shard count is not known: it asks for all). */
  function items(customerId: string): Promise<Record<string, unknown>[]> {
    const keys = [...counterKeys(customerId), legacyKey(customerId)].map((key) => ({ customerId: key }));
    return getItems(db, table, keys);
  }

  return {
    /** By operation id: how many calls, and the last one's time. */
    async read(customerId: string): Promise<DeprecatedCalls> {
      const totals = new Map<string, { count: number; lastMs: number }>();
      const add = (operationId: string, count: unknown, lastMs: number) => {
        const total = totals.get(operationId) ?? { count: 0, lastMs: 0 };
        total.count += Number(count);
        total.lastMs = Math.max(total.lastMs, Number.isFinite(lastMs) ? lastMs : 0);
        totals.set(operationId, total);
      };
      for (const item of await items(customerId)) {
        const legacy = item.customerId === legacyKey(customerId);
        for (const [name, value] of Object.entries(item)) {
          const counted = (legacy ? LEGACY_COUNT_NAME : CALL_COUNT_NAME).exec(name);
          if (!counted?.[1]) continue;
          const operationId = counted[1];
          const last = legacy ? Date.parse(String(item[`last_${operationId}`])) : Number(item[lastCallName(operationId)]) * 1000;
          add(operationId, value, last);
        }
      }
      const calls: DeprecatedCalls = {};
      // A count without a readable time (which no write of ours leaves) shows no time rather than 1970.
      for (const [operationId, { count, lastMs }] of totals)
        calls[operationId] = { count, last: lastMs > 0 ? new Date(lastMs).toISOString() : '' };
      return calls;
    },
  };
}
