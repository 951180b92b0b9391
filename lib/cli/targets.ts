/**
 * Where the admin CLI writes, and as whom: the local DynamoDB (DYNAMODB_ENDPOINT, or DynamoDB Local on
 * DYNAMODB_PORT) with the local table names, as the OS user; or with --aws a deployed stack, whose table names come
 * from its CloudFormation outputs, as the caller's AWS identity (STS GetCallerIdentity). The actor is what the
 * audit trail records for every change.
 */
import { userInfo } from 'node:os';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { adminCliConfig } from '../config.js';
import { createDynamoClient } from '../dynamo/create-client.js';
import { localTableNames, type TableId, type TableSpec } from '../dynamo/tables.js';
import { STACK_NAMES, type Stage, TABLE_OUTPUT_KEYS } from '../stacks.js';

export interface Target {
  client: DynamoDBClient;
  tables: Record<TableSpec['envVar'], string>;
  /** Names the target in the message when it cannot be reached. */
  where: string;
  /** Who the changes are recorded as made by. */
  actor: string;
}

/** The OS user's name; userInfo throws where the user id has no name (some containers), and then the id stands in. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

async function awsIdentity(): Promise<string> {
  const sts = new STSClient({});
  try {
    const { Arn } = await sts.send(new GetCallerIdentityCommand({}));
    if (!Arn) throw new Error('STS GetCallerIdentity returned no ARN');
    return Arn;
  } finally {
    sts.destroy();
  }
}

export async function resolveTarget(stage: Stage, aws: boolean): Promise<Target> {
  if (!aws) {
    // Read only now, after the arguments are checked: a bad variable must not hide a usage error.
    const { dynamoEndpoint, tablePrefix } = adminCliConfig();
    return {
      client: createDynamoClient(dynamoEndpoint),
      tables: localTableNames(stage, tablePrefix),
      where: `local DynamoDB at ${dynamoEndpoint}`,
      actor: osUser(),
    };
  }
  const stackName = STACK_NAMES[stage];
  const cloudFormation = new CloudFormationClient({});
  const [{ Stacks }, actor] = await Promise.all([
    cloudFormation.send(new DescribeStacksCommand({ StackName: stackName })).finally(() => cloudFormation.destroy()),
    awsIdentity(),
  ]);
  const outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const tableName = (id: TableId): string => {
    const name = outputs.get(TABLE_OUTPUT_KEYS[id]);
    if (!name) throw new Error(`stack ${stackName} has no output ${TABLE_OUTPUT_KEYS[id]}: is it deployed with this version?`);
    return name;
  };
  // All of them, though the commands use some: a stack that lacks one is of another version, which the error says.
  const tables = {
    CATEGORIES_TABLE: tableName('categories'),
    CUSTOMERS_TABLE: tableName('customers'),
    KEYS_TABLE: tableName('keys'),
    COUNTERS_TABLE: tableName('counters'),
    IDEMPOTENCY_TABLE: tableName('idempotency'),
    AUDIT_TABLE: tableName('audit'),
  };
  return { client: createDynamoClient(), tables, where: `stack ${stackName}`, actor };
}
