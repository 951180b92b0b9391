/**
 * The WAF web ACL in front of every stage. AWS WAF evaluates it before anything else of API Gateway (resource
 * policy, authorizer, throttle), and it has two rules:
 *
 * 1. **Body size.** A body over the contract's 16 KiB is refused with 413 `PAYLOAD_TOO_LARGE` before it reaches a
 *    function. API Gateway forwards every body base64-encoded (every media type is binary), so without this a
 *    body of a few MB grows past Lambda's 6 MB invoke payload, Lambda refuses the invocation and API Gateway
 *    answers 500: an uncounted 5xx for a client's mistake. WAF inspects the first 16 KB (16,384 bytes) of an API Gateway request's
 *    body, the contract's limit exactly (pinned in `associationConfig`, the only size without an extra fee), and
 *    with oversize handling MATCH a longer body matches unread. The rule blocks without a custom response, so
 *    API Gateway answers with its WAF_FILTERED gateway response ("the gateway response when a request is blocked
 *    by AWS WAF"), which is the 413 in the Error shape with X-Request-Id (lib/api-gateway/gateway-responses.ts). A WAF custom
 *    response could not carry the request id; it would take precedence over the gateway response, which is why
 *    this is the only rule without one.
 * 2. **Rate of requests without a key.** One IP may send at most `ratePer5Minutes` requests in 5 minutes that carry
 *    no well-formed API key of this stage; requests that carry one are never counted, so no customer is ever
 *    refused here, however many share one NAT address: their limits are the functions' to enforce, exactly. A
 *    flood of keyless requests is refused with 429 `THROTTLED` before it costs an authorizer call. Its
 *    `Retry-After` is the rule's evaluation window, the longest a block lasts once the address stops.
 * 3. **Rate per address.** One IP may send at most `ratePerIp` requests in any 60 seconds, whatever its
 *    Authorization header says (a made-up key of the right form included), so one address gets at most a bounded
 *    share of the stage. Sized in lib/usage-plans.ts to admit what one address honestly sends for a Business
 *    customer; addresses in `allowedAddresses` (Enterprise customers sold more) are not counted.
 *
 * No managed rule groups: the common rule set blocks bodies over 8 KB, which would refuse bodies the contract allows.
 */
import { CfnIPSet, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { WAF_RATE_WINDOW_SECONDS, WEB_ACL_RESPONSES } from '../../lib/api-gateway/gateway-responses.js';
import { wellFormedKeyPattern } from '../../lib/auth/keys.js';
import { ANSWER_HEADERS, GATEWAY_RATE_LIMIT_HEADERS } from '../../lib/http/answer-headers.js';
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';
import type { Stage } from '../../lib/stacks.js';
import { ADDRESS_RATE_WINDOW_SECONDS } from '../../lib/usage-plans.js';

/** WAF's body inspection limit for API Gateway that costs nothing extra, in bytes, and its AssociationConfig name. */
export const WAF_BODY_INSPECTION = { bytes: 16 * 1024, limit: 'KB_16' } as const;

/**
 * What WAF looks for in the Authorization header to leave a request uncounted by the keyless rule: a key of this
 * stage's format anywhere in it. Looser than the authorizer (which wants `Bearer <key>` and a valid checksum), never
 * stricter, so every request the authorizer could admit is left alone; a forged well-formed key gets past this rule
 * and is counted by the address rule instead.
 */
export { wellFormedKeyPattern };

export interface WebAclProps {
  readonly name: string;
  readonly stage: Stage;
  /** ARN of the API Gateway stage to protect. */
  readonly stageArn: string;
  /** Requests without a well-formed key of this stage that one IP may send in any 5 minutes. */
  readonly ratePer5Minutes: number;
  /** Requests one IP may send in any 60 seconds, with or without a key. */
  readonly ratePerIp: number;
  /** CIDR blocks (IPv4 or IPv6) the per-address rule does not count. @default none */
  readonly allowedAddresses?: readonly string[];
}

export class WebAcl extends Construct {
  readonly acl: CfnWebACL;

  constructor(scope: Construct, id: string, props: WebAclProps) {
    super(scope, id);
    if (WAF_BODY_INSPECTION.bytes !== MAX_BODY_BYTES) {
      throw new Error(
        `WAF inspects ${WAF_BODY_INSPECTION.bytes} bytes of a body, the contract allows ${MAX_BODY_BYTES}: the body rule relies on them being equal`,
      );
    }
    const keyless = WEB_ACL_RESPONSES.KEYLESS_RATE;
    const perAddress = WEB_ACL_RESPONSES.ADDRESS_RATE;
    const allowed = this.allowList(props);
    const blockWith = (response: (typeof WEB_ACL_RESPONSES)[keyof typeof WEB_ACL_RESPONSES]) => ({
      block: {
        customResponse: {
          responseCode: response.status,
          customResponseBodyKey: response.bodyKey,
          // What every gateway answer carries: no-store, nosniff, the X-RateLimit headers of no known customer.
          responseHeaders: Object.entries({ ...GATEWAY_RATE_LIMIT_HEADERS, ...ANSWER_HEADERS, ...response.headers }).map(
            ([name, value]) => ({ name, value }),
          ),
        },
      },
    });
    const body = (response: (typeof WEB_ACL_RESPONSES)[keyof typeof WEB_ACL_RESPONSES]) => ({
      contentType: 'APPLICATION_JSON',
      content: JSON.stringify({ code: response.code, message: response.message, status: response.status }),
    });
    const metric = (rule: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${props.name}-${rule}`,
      sampledRequestsEnabled: true,
    });
    this.acl = new CfnWebACL(this, 'Acl', {
      name: props.name,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: props.name, sampledRequestsEnabled: true },
      associationConfig: { requestBody: { API_GATEWAY: { defaultSizeInspectionLimit: WAF_BODY_INSPECTION.limit } } },
      customResponseBodies: { [keyless.bodyKey]: body(keyless), [perAddress.bodyKey]: body(perAddress) },
      rules: [
        {
          name: 'body-size',
          priority: 0,
          statement: {
            sizeConstraintStatement: {
              fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
              comparisonOperator: 'GT',
              size: MAX_BODY_BYTES,
              textTransformations: [{ priority: 0, type: 'NONE' }],
            },
          },
          action: { block: {} },
          visibilityConfig: metric('body-size'),
        },
        {
          name: 'keyless-rate',
          priority: 1,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.ratePer5Minutes,
              evaluationWindowSec: WAF_RATE_WINDOW_SECONDS,
              scopeDownStatement: {
                notStatement: {
                  statement: {
                    regexMatchStatement: {
                      fieldToMatch: { singleHeader: { Name: 'authorization' } },
                      regexString: wellFormedKeyPattern(props.stage),
                      textTransformations: [{ priority: 0, type: 'NONE' }],
                    },
                  },
                },
              },
            },
          },
          action: blockWith(keyless),
          visibilityConfig: metric('keyless-rate'),
        },
        {
          name: 'address-rate',
          priority: 2,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.ratePerIp,
              evaluationWindowSec: ADDRESS_RATE_WINDOW_SECONDS,
              ...(allowed ? { scopeDownStatement: { notStatement: { statement: allowed } } } : {}),
            },
          },
          action: blockWith(perAddress),
          visibilityConfig: metric('address-rate'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', { resourceArn: props.stageArn, webAclArn: this.acl.attrArn });
  }

  /** A statement matching the allow-listed addresses (an IP set per address family), or none when there are none. */
  private allowList(props: WebAclProps): CfnWebACL.StatementProperty | undefined {
    const families = [
      { version: 'IPV4', id: 'AllowedIpv4', addresses: (props.allowedAddresses ?? []).filter((a) => !a.includes(':')) },
      { version: 'IPV6', id: 'AllowedIpv6', addresses: (props.allowedAddresses ?? []).filter((a) => a.includes(':')) },
    ].filter((family) => family.addresses.length > 0);
    const references = families.map((family) => {
      const set = new CfnIPSet(this, family.id, {
        name: `${props.name}-${family.id.toLowerCase()}`,
        description: 'Egress addresses the per-address rate rule leaves alone (cdk.json wafAllowedAddresses)',
        scope: 'REGIONAL',
        ipAddressVersion: family.version,
        addresses: family.addresses,
      });
      return { ipSetReferenceStatement: { arn: set.attrArn } };
    });
    if (references.length === 0) return undefined;
    return references.length === 1 ? references[0] : { orStatement: { statements: references } };
  }
}
