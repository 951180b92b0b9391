/**
 * AWS's policy evaluation logic, as far as the stacks' resource-based policies use it, for tests that ask "may this
 * principal do this?" of a synthesized template rather than of the code that wrote it. Written here because the
 * best-known npm policy simulator is AGPL-licensed; this follows AWS's documented rules ("Policy evaluation logic"
 * and "IAM JSON policy elements: Condition operators" in the IAM User Guide):
 *
 * - an explicit Deny in any statement that applies wins; else an Allow that applies allows; else the request is
 *   implicitly denied (a resource-based policy with no Allow for a service principal allows it nothing);
 * - a statement applies when its Principal, Action (or NotAction), Resource (or NotResource) and every condition
 *   match; within a condition operator every key must match, and a key matches when any of its values does;
 * - actions compare case-insensitively, resources and ARNs case-sensitively, `*` and `?` are wildcards;
 *   `ArnLike`/`ArnEquals` compare each of an ARN's six colon-separated parts on its own;
 * - a condition key missing from the request fails a positive operator and passes a negated one (`StringNotEquals`);
 *   `…IfExists` passes when the key is missing.
 *
 * Anything else (NotPrincipal, other operators, unresolvable intrinsics) throws, so a policy this helper does not
 * understand fails the test instead of being judged wrongly.
 */

import * as v from 'valibot';

export type Principal = { service: string } | { aws: string } | 'anonymous';

export interface AccessRequest {
  principal: Principal;
  action: string;
  resource: string;
  /** Condition keys AWS puts in the request context, e.g. `aws:SourceAccount`, `aws:SecureTransport`. */
  context: Readonly<Record<string, string>>;
}

export type Decision = 'Allow' | 'ExplicitDeny' | 'ImplicitDeny';

type Values = string | readonly string[];
export interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Principal?: '*' | { AWS?: Values; Service?: Values; Federated?: Values };
  NotPrincipal?: unknown;
  Action?: Values;
  NotAction?: Values;
  Resource?: Values;
  NotResource?: Values;
  Condition?: Record<string, Record<string, Values>>;
}
export interface PolicyDocument {
  Version?: string;
  Statement: readonly Statement[];
}

const ValuesSchema = v.union([v.string(), v.array(v.string())]);
/** Strict: a policy element this evaluator does not know fails the reading, rather than being ignored. */
const PolicyDocumentSchema = v.strictObject({
  Version: v.optional(v.string()),
  Statement: v.array(
    v.strictObject({
      Sid: v.optional(v.string()),
      Effect: v.picklist(['Allow', 'Deny']),
      Principal: v.optional(
        v.union([
          v.literal('*'),
          v.strictObject({ AWS: v.optional(ValuesSchema), Service: v.optional(ValuesSchema), Federated: v.optional(ValuesSchema) }),
        ]),
      ),
      NotPrincipal: v.optional(v.unknown()),
      Action: v.optional(ValuesSchema),
      NotAction: v.optional(ValuesSchema),
      Resource: v.optional(ValuesSchema),
      NotResource: v.optional(ValuesSchema),
      Condition: v.optional(v.record(v.string(), v.record(v.string(), ValuesSchema))),
    }),
  ),
}) satisfies v.GenericSchema<unknown, PolicyDocument>;

/** A policy document read from a template (its intrinsics resolved first, `resolveIntrinsics`). */
export function policyDocument(value: unknown): PolicyDocument {
  return v.parse(PolicyDocumentSchema, value);
}

const list = (values: Values | undefined): readonly string[] =>
  values === undefined ? [] : typeof values === 'string' ? [values] : values;

/** `*` any run of characters, `?` one character; everything else literally. */
export function wildcardMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const source = [...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

function arnParts(arn: string): string[] | undefined {
  const parts = arn.split(':');
  if (parts.length < 6 || parts[0] !== 'arn') return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}

function arnLike(pattern: string, value: string): boolean {
  const want = arnParts(pattern);
  const got = arnParts(value);
  return !!want && !!got && want.every((part, i) => wildcardMatch(part, got[i] ?? ''));
}

const OPERATORS: Readonly<Record<string, { negated: boolean; test: (policyValue: string, requestValue: string) => boolean }>> = {
  StringEquals: { negated: false, test: (p, r) => p === r },
  StringNotEquals: { negated: true, test: (p, r) => p !== r },
  StringLike: { negated: false, test: (p, r) => wildcardMatch(p, r) },
  ArnEquals: { negated: false, test: arnLike },
  ArnLike: { negated: false, test: arnLike },
  Bool: { negated: false, test: (p, r) => p.toLowerCase() === r.toLowerCase() },
};

function conditionHolds(operatorName: string, keys: Record<string, Values>, context: AccessRequest['context']): boolean {
  const ifExists = operatorName.endsWith('IfExists');
  const operator = OPERATORS[ifExists ? operatorName.slice(0, -'IfExists'.length) : operatorName];
  if (!operator) throw new Error(`condition operator ${operatorName} is not supported by this evaluator`);
  return Object.entries(keys).every(([key, values]) => {
    // Condition keys are case-insensitive; their values are not.
    const present = Object.entries(context).find(([name]) => name.toLowerCase() === key.toLowerCase());
    if (!present) return ifExists || operator.negated;
    const policyValues = list(values);
    // A negated operator holds when the value matches none of them (AWS: "…NotEquals … not match any").
    return operator.negated
      ? policyValues.every((v) => operator.test(v, present[1]))
      : policyValues.some((v) => operator.test(v, present[1]));
  });
}

function principalMatches(statement: Statement, principal: Principal): boolean {
  if (statement.NotPrincipal !== undefined) throw new Error('NotPrincipal is not supported by this evaluator');
  const wanted = statement.Principal;
  // An identity-based policy has no Principal: it applies to whoever holds it. Resource policies always name one.
  if (wanted === undefined)
    throw new Error(`statement ${statement.Sid ?? ''} has no Principal: this evaluator judges resource-based policies`);
  if (wanted === '*') return true;
  if (list(wanted.AWS).includes('*')) return true;
  if (principal === 'anonymous') return false;
  if ('service' in principal) return list(wanted.Service).includes(principal.service);
  const account = principal.aws.split(':')[4];
  return list(wanted.AWS).some((p) => p === principal.aws || p === account || p === `arn:aws:iam::${account}:root`);
}

function statementApplies(statement: Statement, request: AccessRequest): boolean {
  if (!principalMatches(statement, request.principal)) return false;
  if (statement.Action !== undefined && !list(statement.Action).some((a) => wildcardMatch(a, request.action, true))) return false;
  if (statement.NotAction !== undefined && list(statement.NotAction).some((a) => wildcardMatch(a, request.action, true))) return false;
  if (statement.Action === undefined && statement.NotAction === undefined) throw new Error('statement has neither Action nor NotAction');
  if (statement.Resource !== undefined && !list(statement.Resource).some((r) => wildcardMatch(r, request.resource))) return false;
  if (statement.NotResource !== undefined && list(statement.NotResource).some((r) => wildcardMatch(r, request.resource))) return false;
  return Object.entries(statement.Condition ?? {}).every(([operator, keys]) => conditionHolds(operator, keys, request.context));
}

/** The decision of AWS's evaluation logic over the policies that govern the request. */
export function evaluate(policies: readonly PolicyDocument[], request: AccessRequest): Decision {
  const applying = policies.flatMap((p) => p.Statement).filter((s) => statementApplies(s, request));
  if (applying.some((s) => s.Effect === 'Deny')) return 'ExplicitDeny';
  if (applying.some((s) => s.Effect === 'Allow')) return 'Allow';
  return 'ImplicitDeny';
}

/**
 * A template's value with its intrinsic functions worked out: `Ref`, `Fn::GetAtt` and `Fn::Join`, from `refs`
 * (logical ids and pseudo parameters such as `AWS::AccountId` to the value each stands for). Anything else throws.
 */
export function resolveIntrinsics(value: unknown, refs: Readonly<Record<string, string>>): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveIntrinsics(v, refs));
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [first] = entries;
  if (entries.length === 1 && first?.[0].startsWith('Fn::')) {
    const [fn, args] = first;
    if (fn === 'Fn::Join' && Array.isArray(args)) {
      const [separator, parts] = args;
      if (typeof separator !== 'string' || !Array.isArray(parts))
        throw new Error(`Fn::Join takes a separator and a list: ${JSON.stringify(args)}`);
      return parts.map((p) => String(resolveIntrinsics(p, refs))).join(separator);
    }
    if (fn === 'Fn::GetAtt' && Array.isArray(args)) return lookup(refs, `${args[0]}.${args[1]}`);
    throw new Error(`intrinsic ${fn} is not supported by this resolver`);
  }
  if (entries.length === 1 && first?.[0] === 'Ref') return lookup(refs, String(first[1]));
  return Object.fromEntries(entries.map(([k, v]) => [k, resolveIntrinsics(v, refs)]));
}

function lookup(refs: Readonly<Record<string, string>>, name: string): string {
  const found = refs[name];
  if (found === undefined) throw new Error(`no value for ${name} in this test's references`);
  return found;
}
