/**
 * The shape of every DynamoDB table: keys, indexes and TTL. The local gateway creates tables from this list and
 * the CDK stack declares them from it, so the two cannot drift apart.
 */
export type TableId = 'categories' | 'customers' | 'keys' | 'counters' | 'idempotency' | 'audit';

export interface TableSpec {
  id: TableId;
  /** The environment variable that hands the table name to a function. */
  envVar: 'CATEGORIES_TABLE' | 'CUSTOMERS_TABLE' | 'KEYS_TABLE' | 'COUNTERS_TABLE' | 'IDEMPOTENCY_TABLE' | 'AUDIT_TABLE';
  partitionKey: { name: string; type: 'S' | 'N' };
  sortKey?: { name: string; type: 'S' | 'N' };
  indexes?: { name: string; partitionKey: { name: string; type: 'S' | 'N' } }[];
  ttlAttribute?: string;
}

export const TABLES: readonly TableSpec[] = [
  // Categories, their name reservations and the id counter share one table so one transaction covers all three.
  { id: 'categories', envVar: 'CATEGORIES_TABLE', partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'N' } },
  { id: 'customers', envVar: 'CUSTOMERS_TABLE', partitionKey: { name: 'customerId', type: 'S' } },
  {
    id: 'keys',
    envVar: 'KEYS_TABLE',
    partitionKey: { name: 'keyHash', type: 'S' },
    indexes: [{ name: 'byKeyId', partitionKey: { name: 'keyId', type: 'S' } }],
  },
  // The live windows of each customer, and its usage history by month (lib/usage): both expire after its retention.
  { id: 'counters', envVar: 'COUNTERS_TABLE', partitionKey: { name: 'customerId', type: 'S' }, ttlAttribute: 'expiresAt' },
  // Idempotency-Key records, in the layout of Powertools' DynamoDBPersistenceLayer; the library ignores an expired
  // record that DynamoDB's TTL has not deleted yet.
  { id: 'idempotency', envVar: 'IDEMPOTENCY_TABLE', partitionKey: { name: 'id', type: 'S' }, ttlAttribute: 'expiration' },
  // Every change the admin CLI makes, by customer and time (lib/audit/trail.ts). Only the CLI reads or writes it.
  { id: 'audit', envVar: 'AUDIT_TABLE', partitionKey: { name: 'customerId', type: 'S' }, sortKey: { name: 'sk', type: 'S' } },
];

/** Table names used locally and in tests: `<prefix><stage>-<table>`. */
export function localTableNames(stage: string, prefix = 'petstore-'): Record<TableSpec['envVar'], string> {
  const name = (id: TableId) => `${prefix}${stage}-${id}`;
  return {
    CATEGORIES_TABLE: name('categories'),
    CUSTOMERS_TABLE: name('customers'),
    KEYS_TABLE: name('keys'),
    COUNTERS_TABLE: name('counters'),
    IDEMPOTENCY_TABLE: name('idempotency'),
    AUDIT_TABLE: name('audit'),
  };
}
