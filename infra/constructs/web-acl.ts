/**
 * The WAF web ACL in front of every stage, evaluated before the rest of API Gateway, with three rules in order: a body
 * over the contract's 16 KiB (answered by API Gateway's WAF_FILTERED gateway response, 413, before base64 pushes a large
 * body past Lambda's 6 MB payload and API Gateway answers 500); requests without a well-formed key of this stage, per IP;
 * every request per IP, but from `allowedAddresses`. No managed rule groups: the common one blocks bodies over 8 KB.
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

export interface WebAclProps {
  readonly name: string;
  readonly stage: Stage;
  readonly stageArn: string;
  /** Requests without a well-formed key of this stage that one IP may send in any 5 minutes. */
  readonly ratePer5Minutes: number;
  /** Requests one IP may send in any 60 seconds, with or without a key. */
  readonly ratePerIp: number;
  /** CIDR blocks (IPv4 or IPv6) the per-address rule does not count. @default none */
  readonly allowedAddresses?: readonly string[];
}

export class WebAcl extends Construct {
  constructor(scope: Construct, id: string, props: WebAclProps) {
    super(scope, id);
    if (WAF_BODY_INSPECTION.bytes !== MAX_BODY_BYTES)
      throw new Error(
        `WAF inspects ${WAF_BODY_INSPECTION.bytes} bytes of a body, the contract allows ${MAX_BODY_BYTES}: the body rule relies on them being equal`,
      );
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
    const acl = new CfnWebACL(this, 'Acl', {
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
          // No custom response: it would take precedence over the WAF_FILTERED gateway response, which has X-Request-Id.
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
                    // A key of this stage's format anywhere: looser than the authorizer, so it admits every key it could.
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
    new CfnWebACLAssociation(this, 'Association', { resourceArn: props.stageArn, webAclArn: acl.attrArn });
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
