/** The admin's writes: one TransactWriteItems guarded on the state read (so the audit record in `also` is true); their errors. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Customer, KeyRecord } from './records.js';

export class CustomerNotFound extends Error {}
export class KeyNotFound extends Error {}
/** What the CLI read changed before its write landed (another operator, most likely): nothing was written. */
export class ConcurrentChange extends Error {}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface ChangeOptions {
  now?: Date;
  /** Written in the same transaction as the change, after it (the audit record). */
  also?: readonly TransactItem[];
}

/** A change that issues a key: what goes with it may name the new key (its keyId, never the key). */
export interface NewKeyOptions extends Omit<ChangeOptions, 'also'> {
  also?: (record: KeyRecord) => readonly TransactItem[];
  expiresAt?: Date;
}

/** One transaction; `onCondition` gets the index of a part whose condition failed and names the error (undefined: the SDK's). */
export async function transact(
  db: DynamoDBDocumentClient,
  items: TransactItem[],
  onCondition: (index: number) => Error | undefined,
): Promise<void> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const index = (error.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      const named = index >= 0 ? onCondition(index) : undefined;
      if (named) throw named;
    }
    throw error;
  }
}

/** The condition that a customer is still as the caller read it (`undefined`: no condition). */
export function guardOn(seen: Customer | null | undefined): { condition?: string; values: Record<string, string> } {
  if (seen === undefined) return { values: {} };
  if (seen === null) return { condition: 'attribute_not_exists(customerId)', values: {} };
  return { condition: 'updatedAt = :seenUpdatedAt', values: { ':seenUpdatedAt': seen.updatedAt } };
}
