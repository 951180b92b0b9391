/** Where the admin CLI writes, and as whom: the local DynamoDB as the OS user, or with --aws a deployed stack as the caller. */
import { userInfo } from 'node:os';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { adminCliConfig } from '../config.js';
import { createDynamoClient } from '../dynamo/client.js';
import { localTableNames, TABLES, type TableId, type TableSpec } from '../dynamo/tables.js';
import { ADDRESS_RATE_OUTPUT, STACK_NAMES, type Stage, TABLE_OUTPUT_KEYS, THROTTLE_RATE_OUTPUT, USAGE_PLAN_IDS_OUTPUT } from '../stacks.js';
import { UsageError } from './args.js';
import { CDK_JSON, cdkJsonStage } from './cdk-json.js';
import { readRunningStart, runningStartFile } from './running-start.js';

export interface Target {
  client: DynamoDBClient;
  tables: Record<TableSpec['envVar'], string>;
  /** Names the target, and locally how to reach a running `npm start`, when it cannot be reached. */
  where: string;
  unreachableHint?: string;
  /** Who the audit trail records as making the changes. */
  actor: string;
  /** The stage throttle in requests a second, and where that figure comes from. */
  throttle: { rateLimit: number; source: string } | { unknown: string };
  /** With --aws: the stack, its account, region and outputs, and its usage plan ids by name. */
  deployed?: { stack: string; account: string; region: string; outputs: ReadonlyMap<string | undefined, string | undefined> };
  usagePlanIds?: Record<string, string> | { unknown: string };
  /** Requests one address may send in 60 s past the web ACL. */
  addressLimit: { perIp: number; source: string } | { unknown: string };
}

/** userInfo throws where the user id has no name (some containers): the id stands in. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

async function awsIdentity(): Promise<{ arn: string; account: string }> {
  const sts = new STSClient({});
  try {
    const { Arn, Account } = await sts.send(new GetCallerIdentityCommand({}));
    if (!Arn || !Account) throw new Error('STS GetCallerIdentity returned no ARN or account');
    return { arn: Arn, account: Account };
  } finally {
    sts.destroy();
  }
}

export async function resolveTarget(stage: Stage, aws: boolean, cdkJson: URL = CDK_JSON): Promise<Target> {
  if (!aws) {
    // Read only now, after the arguments are checked: a bad variable must not hide a usage error.
    const local = adminCliConfig();
    // A running `npm start` says where its DynamoDB is, unless a variable names one.
    const running = local.endpointFrom === 'default' ? readRunningStart(local.dataDir) : undefined;
    const dynamoEndpoint = running?.dynamoEndpoint ?? local.dynamoEndpoint;
    const settings = cdkJsonStage(stage, cdkJson);
    return {
      client: createDynamoClient(dynamoEndpoint),
      tables: localTableNames(stage, local.tablePrefix),
      where: running
        ? `local DynamoDB at ${dynamoEndpoint} (npm start's, from ${runningStartFile(local.dataDir)})`
        : `local DynamoDB at ${dynamoEndpoint} (${local.endpointFrom === 'default' ? 'the default' : `from ${local.endpointFrom}`})`,
      unreachableHint:
        local.endpointFrom === 'default' && !running
          ? `no npm start runs with DATA_DIR ${local.dataDir}: start it, or set DATA_DIR to the one it runs with, or DYNAMODB_ENDPOINT / DYNAMODB_PORT to its DynamoDB`
          : 'is `npm start` running? Set DYNAMODB_ENDPOINT or DYNAMODB_PORT to the DynamoDB it runs with, or leave both unset and set DATA_DIR to find it',
      actor: osUser(),
      throttle: { rateLimit: settings.throttleRateLimit, source: `cdk.json petstore.${stage}.throttleRateLimit` },
      addressLimit: { perIp: settings.wafRateLimitPerIp, source: `cdk.json petstore.${stage}.wafRateLimitPerIp` },
    };
  }
  const stackName = STACK_NAMES[stage];
  const pinned = cdkJsonStage(stage, cdkJson);
  const cloudFormation = new CloudFormationClient({});
  const region = await cloudFormation.config.region();
  const [{ Stacks }, identity] = await Promise.all([
    cloudFormation.send(new DescribeStacksCommand({ StackName: stackName })).finally(() => cloudFormation.destroy()),
    awsIdentity(),
  ]);
  // Checked before anything is read or written: the same stack name exists in every account a stage may be tried in.
  if (pinned.account !== undefined && pinned.account !== identity.account) {
    throw new UsageError(
      `cdk.json pins ${stage} to account ${pinned.account}, but these credentials are for account ${identity.account}: use ${stage}'s credentials`,
    );
  }
  if (pinned.region !== undefined && pinned.region !== region) {
    throw new UsageError(
      `cdk.json pins ${stage} to ${pinned.region}, but the AWS region in use is ${region}: set AWS_REGION=${pinned.region}`,
    );
  }
  const outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const tableName = (id: TableId): string => {
    const name = outputs.get(TABLE_OUTPUT_KEYS[id]);
    if (!name) throw new Error(`stack ${stackName} has no output ${TABLE_OUTPUT_KEYS[id]}: is it deployed with this version?`);
    return name;
  };
  // All of them, though the commands use some: a stack that lacks one is of another version, which the error says.
  const tables = Object.fromEntries(TABLES.map(({ id, envVar }) => [envVar, tableName(id)])) as Target['tables'];
  const missing = (key: string) => ({ unknown: `stack ${stackName} has no output ${key}: deploy this version of the stack first` });
  const figure = (key: string) => {
    const value = Number(outputs.get(key));
    return Number.isInteger(value) && value > 0 ? { value, source: `output ${key} of stack ${stackName}` } : undefined;
  };
  const rate = figure(THROTTLE_RATE_OUTPUT);
  const perIp = figure(ADDRESS_RATE_OUTPUT);
  return {
    client: createDynamoClient(),
    tables,
    where: `stack ${stackName}`,
    actor: identity.arn,
    throttle: rate ? { rateLimit: rate.value, source: rate.source } : missing(THROTTLE_RATE_OUTPUT),
    deployed: { stack: stackName, account: identity.account, region, outputs },
    usagePlanIds: usagePlanIdsOf(outputs.get(USAGE_PLAN_IDS_OUTPUT)) ?? missing(USAGE_PLAN_IDS_OUTPUT),
    addressLimit: perIp ? { perIp: perIp.value, source: perIp.source } : missing(ADDRESS_RATE_OUTPUT),
  };
}

function usagePlanIdsOf(output: string | undefined): Record<string, string> | undefined {
  try {
    const parsed: unknown = JSON.parse(output ?? '');
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return undefined;
  }
}
