/** The admin CLI's audit trail: who changed what from what, and when; keys by their public keyId, never a key or its hash. */
import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand, paginateQuery, paginateScan } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { TransactItem } from '../auth/admin-change.js';
import { nowMs } from '../clock.js';

// Written in the transaction of the change it records (`also`), but for `unban`'s, which follows the rate limiter's write.
export const AUDIT_ACTIONS = [
  'plan-change',
  'key-create',
  'key-roll',
  'key-revoke',
  'suspend',
  'resume',
  'unban',
  'category-rename',
  'category-delete',
  'gateway-key',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The partition of changes to a category without a recorded creator: no customer id can be "-" (lib/cli/args.ts). */
export const NO_CUSTOMER = '-';

const ValueSchema = v.nullable(v.union([v.string(), v.number(), v.boolean()]));
const ChangesSchema = v.record(v.string(), v.object({ from: ValueSchema, to: ValueSchema }));
/** Field by field, what a change did: `{ plan: { from: 'free', to: 'pro' } }`; `from: null` where there was nothing. */
export type Changes = v.InferOutput<typeof ChangesSchema>;

const AuditItemSchema = v.object({
  customerId: v.string(),
  sk: v.string(),
  at: v.string(),
  actor: v.string(),
  // Any name, not only AUDIT_ACTIONS: a later release's action must not make the whole trail unreadable.
  action: v.string(),
  keyId: v.optional(v.string()),
  categoryId: v.optional(v.number()),
  changes: ChangesSchema,
  reason: v.optional(v.string()),
});
export type AuditEntry = Omit<v.InferOutput<typeof AuditItemSchema>, 'sk'>;

export interface AuditInput {
  action: AuditAction;
  customerId: string;
  keyId?: string;
  categoryId?: number;
  changes: Changes;
  reason?: string;
}

export function changed(
  from: Record<string, Changes[string]['from'] | undefined>,
  to: Record<string, Changes[string]['to'] | undefined>,
): Changes {
  const out: Changes = {};
  for (const field of new Set([...Object.keys(from), ...Object.keys(to)])) {
    const before = from[field] ?? null;
    const after = to[field] ?? null;
    if (before !== after) out[field] = { from: before, to: after };
  }
  return out;
}

export function auditTrail(db: DynamoDBDocumentClient, table: string, actor: string) {
  function item(input: AuditInput, now: Date) {
    const at = now.toISOString();
    return {
      customerId: input.customerId,
      // The time first, so a customer's records sort by it; a random part keeps two in one millisecond apart.
      sk: `${at}#${randomUUID().slice(0, 8)}`,
      at,
      actor,
      action: input.action,
      ...(input.keyId ? { keyId: input.keyId } : {}),
      ...(input.categoryId !== undefined ? { categoryId: input.categoryId } : {}),
      changes: input.changes,
      ...(input.reason ? { reason: input.reason } : {}),
    };
  }

  const entryOf = (raw: Record<string, unknown>): AuditEntry => {
    const { sk: _sk, ...entry } = v.parse(AuditItemSchema, raw);
    return entry;
  };

  /** The record of a change, to be written in the change's own transaction. */
  const entry = (input: AuditInput, now: Date): TransactItem => ({
    Put: { TableName: table, Item: item(input, now), ConditionExpression: 'attribute_not_exists(sk)' },
  });

  return {
    actor,
    entry,
    change: (input: AuditInput, now = new Date(nowMs())) => ({ now, also: [entry(input, now)] }),
    /** Writes the record of a change made by a write of its own (unban). */
    async record(input: AuditInput, now: Date): Promise<AuditEntry> {
      const written = item(input, now);
      await db.send(new PutCommand({ TableName: table, Item: written, ConditionExpression: 'attribute_not_exists(sk)' }));
      return entryOf(written);
    },
    /** The records of one customer or of all, from `since` (an ISO instant) on, oldest first. */
    async list(filter: { customerId?: string; since?: string }): Promise<AuditEntry[]> {
      const { customerId, since } = filter;
      const items: Record<string, unknown>[] = [];
      const pages = customerId
        ? paginateQuery(
            { client: db },
            {
              TableName: table,
              KeyConditionExpression: since ? 'customerId = :customerId AND sk >= :since' : 'customerId = :customerId',
              ExpressionAttributeValues: { ':customerId': customerId, ...(since ? { ':since': since } : {}) },
              ConsistentRead: true,
            },
          )
        : paginateScan(
            { client: db },
            {
              TableName: table,
              ...(since ? { FilterExpression: 'sk >= :since', ExpressionAttributeValues: { ':since': since } } : {}),
              ConsistentRead: true,
            },
          );
      for await (const page of pages) items.push(...(page.Items ?? []));
      return items
        .map((raw) => ({ raw, entry: entryOf(raw) }))
        .sort((a, b) => String(a.raw.sk).localeCompare(String(b.raw.sk)) || a.entry.customerId.localeCompare(b.entry.customerId))
        .map(({ entry }) => entry);
    },
  };
}
