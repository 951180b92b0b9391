/** The DynamoDB tables of one environment, from TABLES; production's outlive their stack (deletion protection, RETAIN). */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLES, type TableId, type TableSpec } from '../../lib/dynamo/tables.js';

export interface PetStoreTablesProps {
  /** Keep the data when the stack is deleted or a table would be replaced. */
  readonly retainData: boolean;
}

const attributeType = { S: AttributeType.STRING, N: AttributeType.NUMBER } as const;
const attribute = (key: TableSpec['partitionKey']) => ({ name: key.name, type: attributeType[key.type] });

export class PetStoreTables extends Construct {
  readonly tables: Readonly<Record<TableId, Table>>;

  constructor(scope: Construct, id: string, props: PetStoreTablesProps) {
    super(scope, id);
    const table = (tableId: TableId): Table => {
      const spec = TABLES.find((t) => t.id === tableId);
      if (!spec) throw new Error(`No table ${tableId} in TABLES (lib/dynamo/tables.ts)`);
      const created = new Table(this, spec.id, {
        partitionKey: attribute(spec.partitionKey),
        sortKey: spec.sortKey ? attribute(spec.sortKey) : undefined,
        // A throttled counter write would refuse a paying request, so capacity follows demand.
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        timeToLiveAttribute: spec.ttlAttribute,
        encryption: TableEncryption.AWS_MANAGED,
        deletionProtection: props.retainData,
        removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
      for (const index of spec.indexes ?? [])
        created.addGlobalSecondaryIndex({ indexName: index.name, partitionKey: attribute(index.partitionKey) });
      return created;
    };
    // Spelled out so the type checker wants a line here for every TableId; created in the order of TABLES.
    this.tables = {
      categories: table('categories'),
      customers: table('customers'),
      keys: table('keys'),
      counters: table('counters'),
      idempotency: table('idempotency'),
      audit: table('audit'),
    };
  }
}
