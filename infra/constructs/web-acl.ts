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
 *
 * No managed rule groups: the common rule set blocks bodies over 8 KB, which would refuse bodies the contract allows.
 */
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { WAF_RATE_WINDOW_SECONDS, WEB_ACL_RESPONSES } from '../../lib/api-gateway/gateway-responses.js';
import { KEY_PREFIX } from '../../lib/auth/keys.js';
import { ANSWER_HEADERS, GATEWAY_RATE_LIMIT_HEADERS } from '../../lib/http/answer-headers.js';
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';
import type { Stage } from '../../lib/stacks.js';

/** WAF's body inspection limit for API Gateway that costs nothing extra, in bytes, and its AssociationConfig name. */
export const WAF_BODY_INSPECTION = { bytes: 16 * 1024, limit: 'KB_16' } as const;

/**
 * What WAF looks for in the Authorization header to leave a request uncounted: a key of this stage's format
 * anywhere in it. Looser than the authorizer (which wants `Bearer <key>` and a valid checksum), never stricter, so
 * every request the authorizer could admit is left alone; a forged well-formed key gets past this rule and is
 * refused by the authorizer, without a DynamoDB read unless its (public, CRC32) checksum is right, then after one
 * GetItem; the stage throttle bounds such traffic.
 */
export function wellFormedKeyPattern(stage: Stage): string {
  return `${KEY_PREFIX[stage]}[0-9A-Za-z]{36}`;
}

export interface WebAclProps {
  readonly name: string;
  readonly stage: Stage;
  /** ARN of the API Gateway stage to protect. */
  readonly stageArn: string;
  /** Requests without a well-formed key of this stage that one IP may send in any 5 minutes. */
  readonly ratePer5Minutes: number;
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
      customResponseBodies: {
        [keyless.bodyKey]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ code: keyless.code, message: keyless.message, status: keyless.status }),
        },
      },
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
          action: {
            block: {
              customResponse: {
                responseCode: keyless.status,
                customResponseBodyKey: keyless.bodyKey,
                // What every gateway answer carries: no-store, nosniff, the X-RateLimit headers of no known customer.
                responseHeaders: Object.entries({ ...GATEWAY_RATE_LIMIT_HEADERS, ...ANSWER_HEADERS, ...keyless.headers }).map(
                  ([name, value]) => ({
                    name,
                    value,
                  }),
                ),
              },
            },
          },
          visibilityConfig: metric('keyless-rate'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', { resourceArn: props.stageArn, webAclArn: this.acl.attrArn });
  }
}
