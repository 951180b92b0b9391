/**
 * AWS WAF's evaluation of a synthesized web ACL, as far as the stacks' rules use it, so that tests can ask what
 * WAF does with a request rather than what the construct wrote ("How AWS WAF processes a web ACL" and the
 * statement references in the AWS WAF Developer Guide):
 *
 * - rules run in priority order; the first Block ends the evaluation, and without one the default action applies;
 * - a rate-based rule counts the requests its scope-down statement matches (all of them without one), per
 *   aggregation key, over its evaluation window, and blocks an address only while its count is over the limit;
 *   a request outside the scope is never counted, so the rule can never block it;
 * - a size constraint on the body sees at most the resource's inspection limit; a longer body is judged by the
 *   field's oversize handling (MATCH, NO_MATCH, or CONTINUE: the inspected part only);
 * - a header field matches nothing when the request has no such header (names compare ignoring case).
 *
 * Any other statement, field or option throws, so a rule this helper does not understand fails the test.
 */

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON; the evaluator checks what it reads.
type Json = any;

export interface WafRequest {
  /** Header names in any case. */
  headers: Readonly<Record<string, string>>;
  /** The body's length in bytes. */
  bodyBytes: number;
}

export interface RuleOutcome {
  /** The rule that blocked the request, if one did (rate-based rules: were its address over the limit). */
  blockedBy?: { name: string; customResponse?: { ResponseCode: number; CustomResponseBodyKey?: string; ResponseHeaders?: unknown } };
  /** Rate-based rules that count this request, with their limit and window. */
  countedBy: { name: string; limit: number; windowSeconds: number }[];
}

/** WAF's body inspection limit for API Gateway by AssociationConfig name. */
const INSPECTION_LIMITS: Readonly<Record<string, number>> = { KB_16: 16_384, KB_32: 32_768, KB_48: 49_152, KB_64: 65_536 };

function bodyInspectionLimit(acl: Json): number {
  const configured = acl.AssociationConfig?.RequestBody?.API_GATEWAY?.DefaultSizeInspectionLimit;
  const limit = INSPECTION_LIMITS[configured ?? 'KB_16'];
  if (limit === undefined) throw new Error(`unknown inspection limit ${configured}`);
  return limit;
}

function headerValue(request: WafRequest, name: string): string | undefined {
  return Object.entries(request.headers).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

function noTransformation(statement: Json): void {
  const transformations = statement.TextTransformations as { Type: string }[];
  if (transformations.some((t) => t.Type !== 'NONE')) throw new Error('text transformations are not supported by this evaluator');
}

function compare(operator: string, actual: number, size: number): boolean {
  switch (operator) {
    case 'GT':
      return actual > size;
    case 'GE':
      return actual >= size;
    case 'LT':
      return actual < size;
    case 'LE':
      return actual <= size;
    case 'EQ':
      return actual === size;
    case 'NE':
      return actual !== size;
    default:
      throw new Error(`comparison ${operator} is not supported`);
  }
}

/** Only the regular expressions JavaScript and WAF's PCRE read alike: literals, classes and counted repeats. */
export const PORTABLE_REGEX = /^(?:[A-Za-z0-9_-]|\[[A-Za-z0-9-]+\]|\{\d+\})+$/;

function matches(statement: Json, request: WafRequest, acl: Json): boolean {
  const [kind, body] = Object.entries(statement)[0] as [string, Json];
  switch (kind) {
    case 'NotStatement':
      return !matches(body.Statement, request, acl);
    case 'RegexMatchStatement': {
      noTransformation(body);
      const header = body.FieldToMatch.SingleHeader?.Name;
      if (!header) throw new Error('only SingleHeader regex matches are supported');
      if (!PORTABLE_REGEX.test(body.RegexString)) throw new Error(`regex ${body.RegexString} is beyond this evaluator's portable subset`);
      const value = headerValue(request, header);
      return value !== undefined && new RegExp(body.RegexString).test(value);
    }
    case 'SizeConstraintStatement': {
      noTransformation(body);
      const field = body.FieldToMatch.Body;
      if (!field) throw new Error('only body size constraints are supported');
      const limit = bodyInspectionLimit(acl);
      if (request.bodyBytes > limit) {
        const handling = field.OversizeHandling ?? 'CONTINUE';
        if (handling === 'MATCH') return true;
        if (handling === 'NO_MATCH') return false;
        return compare(body.ComparisonOperator, limit, body.Size);
      }
      return compare(body.ComparisonOperator, request.bodyBytes, body.Size);
    }
    default:
      throw new Error(`statement ${kind} is not supported by this evaluator`);
  }
}

/**
 * What the web ACL does with one request, taking every rate-based rule that counts it to be over its limit (the
 * worst case for the sender): which rule blocks it, and which rate-based rules count it at all.
 */
export function evaluateWebAcl(acl: Json, request: WafRequest): RuleOutcome {
  if (!acl.DefaultAction?.Allow) throw new Error('only web ACLs that allow by default are supported');
  const rules = [...(acl.Rules as Json[])].sort((a, b) => a.Priority - b.Priority);
  const countedBy: RuleOutcome['countedBy'] = [];
  for (const rule of rules) {
    let hit: boolean;
    const rate = rule.Statement.RateBasedStatement;
    if (rate) {
      if (rate.AggregateKeyType !== 'IP') throw new Error('only per-IP rate-based rules are supported');
      hit = rate.ScopeDownStatement ? matches(rate.ScopeDownStatement, request, acl) : true;
      if (hit) countedBy.push({ name: rule.Name, limit: rate.Limit, windowSeconds: rate.EvaluationWindowSec ?? 300 });
    } else {
      hit = matches(rule.Statement, request, acl);
    }
    if (!hit) continue;
    if (rule.Action.Block) return { blockedBy: { name: rule.Name, customResponse: rule.Action.Block.CustomResponse }, countedBy };
    if (!rule.Action.Count) throw new Error(`rule action ${Object.keys(rule.Action)} is not supported`);
  }
  return { countedBy };
}
