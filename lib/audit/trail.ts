/**
 * The audit trail of the admin CLI: every change it makes, who made it, when, and what changed from what. Never a
 * key or a key hash: keys appear by their public keyId. One item per change in the audit table, by customer and time.
 * Only the CLI reads or writes the table; no function is granted it.
 */
import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand, type QueryCommandOutput, ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { TransactItem } from '../auth/admin-change.js';

/**
 * The changes recorded. An item is
 *   { customerId, sk: "<ISO time>#<random>", at, actor, action, keyId?, categoryId?, changes: { <field>: { from, to } },
 *     reason? }
 * A category's change is recorded under the customer that created it, so `audit --customer C` shows what was done to
 * C's categories, or under NO_CUSTOMER for a category stored before creators were recorded.
 *
 * A record is written in the same transaction as the change it records (lib/auth/admin-change.ts, `also`): no change
 * without its record, no record without its change. The exception is `unban`, whose write belongs to the rate
 * limiter: its record follows it.
 */
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
  /** The OS user locally; the caller's AWS identity ARN with --aws. */
  actor: v.string(),
  // Read as any name, not only those of AUDIT_ACTIONS: a record written by a later release, with an action this one
  // does not know, must not make the whole trail unreadable (as a closed list of actions would).
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

/** `changes` for the fields whose value differs between `from` and `to`. */
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

/** The trail of one environment, recording as `actor`. */
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

  return {
    actor,

    /** The record of a change, to be written in the change's own transaction. */
    entry(input: AuditInput, now: Date): TransactItem {
      return { Put: { TableName: table, Item: item(input, now), ConditionExpression: 'attribute_not_exists(sk)' } };
    },

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
      let startKey: QueryCommandOutput['LastEvaluatedKey'];
      do {
        const page = customerId
          ? await db.send(
              new QueryCommand({
                TableName: table,
                KeyConditionExpression: since ? 'customerId = :customerId AND sk >= :since' : 'customerId = :customerId',
                ExpressionAttributeValues: { ':customerId': customerId, ...(since ? { ':since': since } : {}) },
                ExclusiveStartKey: startKey,
                ConsistentRead: true,
              }),
            )
          : await db.send(
              new ScanCommand({
                TableName: table,
                ...(since ? { FilterExpression: 'sk >= :since', ExpressionAttributeValues: { ':since': since } } : {}),
                ExclusiveStartKey: startKey,
                ConsistentRead: true,
              }),
            );
        items.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return items
        .map((raw) => ({ raw, entry: entryOf(raw) }))
        .sort((a, b) => String(a.raw.sk).localeCompare(String(b.raw.sk)) || a.entry.customerId.localeCompare(b.entry.customerId))
        .map(({ entry }) => entry);
    },
  };
}
