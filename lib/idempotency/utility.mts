/**
 * Powertools' Idempotency utility (`makeIdempotent`) over the records of persistence.ts, in a file of its own that only
 * the functions of idempotent routes carry, loaded by an instance's first request with a key.
 */
import {
  IdempotencyConfig,
  IdempotencyInvalidStatusError,
  IdempotencyItemAlreadyExistsError,
  IdempotencyItemNotFoundError,
  IdempotencyRecordStatus,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { Context } from 'aws-lambda';
import type { IdempotentRequest } from './key.js';
import type { IdempotencyRecords, RecordItem, RecordWrite, StoredAnswer } from './persistence.js';

const STATUSES = Object.values(IdempotencyRecordStatus);

function recordOf(item: RecordItem): IdempotencyRecord {
  const status = STATUSES.find((known) => known === item.status);
  if (!status) throw new IdempotencyInvalidStatusError(item.status);
  return new IdempotencyRecord({
    idempotencyKey: item.id,
    status,
    expiryTimestamp: item.expiration,
    inProgressExpiryTimestamp: item.in_progress_expiration,
    responseData: item.data,
    payloadHash: item.validation,
  });
}

/** A persistence layer over the function's own records (the library's DynamoDB layer, without its SDK import). */
class RecordsLayer extends BasePersistenceLayer {
  readonly #records: IdempotencyRecords;

  constructor(records: IdempotencyRecords) {
    super();
    this.#records = records;
  }

  #itemOf(record: IdempotencyRecord): RecordWrite {
    return {
      id: record.idempotencyKey,
      status: record.getStatus(),
      expiration: record.expiryTimestamp,
      in_progress_expiration: record.inProgressExpiryTimestamp,
      validation: this.isPayloadValidationEnabled() ? record.payloadHash : undefined,
      data: record.responseData,
    };
  }

  protected async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    const item = await this.#records.get(idempotencyKey);
    if (!item) throw new IdempotencyItemNotFoundError();
    return recordOf(item);
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    const held = await this.#records.claim(this.#itemOf(record));
    if (held) {
      throw new IdempotencyItemAlreadyExistsError(
        `Failed to put record for already existing idempotency key: ${record.idempotencyKey}`,
        held.holder && recordOf(held.holder),
      );
    }
  }

  protected async _updateRecord(record: IdempotencyRecord): Promise<void> {
    await this.#records.complete(this.#itemOf(record));
  }

  protected async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    await this.#records.release(record.idempotencyKey);
  }
}

/** Runs `run` at most once per key: its answer, stored, or the stored answer of the key with `replayed: true`. */
export type Remember = (request: IdempotentRequest, context: Context, run: () => Promise<StoredAnswer>) => Promise<unknown>;

/** Record keys start with `keyPrefix` (the operation id), not the library's default, a name a redeploy can change. */
export function rememberer(records: IdempotencyRecords, keyPrefix: string, expiresAfterSeconds: number): Remember {
  const config = new IdempotencyConfig({
    // The key: customer and Idempotency-Key together, so two customers' equal keys are two records.
    eventKeyJmesPath: '[customerId, key]',
    // The fingerprint: a retry must come with the same body, else 422.
    payloadValidationJmesPath: 'body',
    hashFunction: 'sha256',
    expiresAfterSeconds,
    // Called on a replay only, which is how the answer learns it is one.
    responseHook: (response) =>
      typeof response === 'object' && response !== null && !Array.isArray(response) ? { ...response, replayed: true } : response,
  });
  // The Lambda context in the second argument is how the library reads the time left: a claim lapses when the
  // invocation that made it would have been cut off, so a request that died never blocks its key for longer.
  return makeIdempotent(async (_request: IdempotentRequest, _context: Context, run: () => Promise<StoredAnswer>) => run(), {
    persistenceStore: new RecordsLayer(records),
    config,
    keyPrefix,
  });
}
