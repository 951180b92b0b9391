/**
 * The idempotency table's records, read and written with the function's document client, in the form Powertools'
 * DynamoDB persistence layer writes (its attribute names and its condition for a claim), so records written by it
 * or by the previous release read the same.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';

/** What is remembered of a result: the operation's own part, as the answer held it (finish.ts adds the rest). */
export const StoredAnswerSchema = v.object({
  statusCode: v.number(),
  headers: v.record(v.string(), v.string()),
  body: v.string(),
});
export type StoredAnswer = v.InferOutput<typeof StoredAnswerSchema>;

const ItemSchema = v.object({
  id: v.string(),
  status: v.string(),
  expiration: v.optional(v.number()),
  in_progress_expiration: v.optional(v.number()),
  validation: v.optional(v.string()),
  data: v.optional(StoredAnswerSchema),
});
/** A record as read. */
export type RecordItem = v.InferOutput<typeof ItemSchema>;
/** A record as written: its answer is what the utility hands over. */
export type RecordWrite = Omit<RecordItem, 'data'> & { data?: unknown };

export interface IdempotencyRecords {
  /** The record of a key, read consistently; undefined when there is none. */
  get(id: string): Promise<RecordItem | undefined>;
  /** Writes a claim unless a live record (not expired, not a lapsed claim) holds the key; else returns that record. */
  claim(item: RecordWrite): Promise<{ holder: RecordItem | undefined } | undefined>;
  /** Sets the status, expiration, body hash and, when given, the answer of a claimed record. */
  complete(item: RecordWrite): Promise<void>;
  /** Deletes a record: the claim of a request that failed, so that a retry runs. */
  release(id: string): Promise<void>;
}

const parsedItem = (item: Record<string, unknown> | undefined) => (item ? v.parse(ItemSchema, item) : undefined);

export function idempotencyRecords(db: DynamoDBDocumentClient, table: string): IdempotencyRecords {
  return {
    async get(id) {
      const { Item } = await db.send(new GetCommand({ TableName: table, Key: { id }, ConsistentRead: true }));
      return parsedItem(Item);
    },

    async claim(item) {
      const now = Date.now();
      try {
        await db.send(
          new PutCommand({
            TableName: table,
            Item: item,
            ConditionExpression:
              'attribute_not_exists(#id) OR #expiry < :now OR (#status = :inprogress AND attribute_exists(#in_progress_expiry) AND #in_progress_expiry < :now_in_millis)',
            ExpressionAttributeNames: {
              '#id': 'id',
              '#expiry': 'expiration',
              '#in_progress_expiry': 'in_progress_expiration',
              '#status': 'status',
            },
            ExpressionAttributeValues: { ':now': now / 1000, ':now_in_millis': now, ':inprogress': 'INPROGRESS' },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return undefined;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return { holder: parsedItem(error.Item && unmarshall(error.Item)) };
      }
    },

    async complete({ id, status, expiration, validation, data }) {
      const names: Record<string, string> = { '#expiry': 'expiration', '#status': 'status' };
      const values: Record<string, unknown> = { ':expiry': expiration, ':status': status };
      const set = ['#expiry = :expiry', '#status = :status'];
      if (data !== undefined) {
        set.push('#response_data = :response_data');
        names['#response_data'] = 'data';
        values[':response_data'] = data;
      }
      if (validation !== undefined) {
        set.push('#validation_key = :validation_key');
        names['#validation_key'] = 'validation';
        values[':validation_key'] = validation;
      }
      await db.send(
        new UpdateCommand({
          TableName: table,
          Key: { id },
          UpdateExpression: `SET ${set.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    },

    async release(id) {
      await db.send(new DeleteCommand({ TableName: table, Key: { id } }));
    },
  };
}
