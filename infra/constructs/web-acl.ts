/**
 * An optional WAF web ACL in front of the stage with one per-IP rate rule: a flood from one address is refused at
 * the edge before it costs an authorizer call. Refusals use the contract's THROTTLED Error body. No managed rule
 * groups: the common rule set blocks bodies over 8 KB, which would turn the contract's 16 KiB limit into a 403.
 */
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ANSWER_HEADERS, GATEWAY_RESPONSES } from '../../lib/http/gateway-responses.js';

export interface WebAclProps {
  readonly name: string;
  /** ARN of the API Gateway stage to protect. */
  readonly stageArn: string;
  /** Requests one IP may send in any 5 minutes. */
  readonly ratePer5Minutes: number;
}

export class WebAcl extends Construct {
  readonly acl: CfnWebACL;

  constructor(scope: Construct, id: string, props: WebAclProps) {
    super(scope, id);
    const throttled = GATEWAY_RESPONSES.THROTTLED;
    this.acl = new CfnWebACL(this, 'Acl', {
      name: props.name,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: props.name, sampledRequestsEnabled: true },
      customResponseBodies: {
        throttled: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ code: throttled.code, message: throttled.message, status: throttled.status }),
        },
      },
      rules: [
        {
          name: 'per-ip-rate',
          priority: 0,
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit: props.ratePer5Minutes } },
          action: {
            block: {
              customResponse: {
                responseCode: throttled.status,
                customResponseBodyKey: 'throttled',
                // no-store and nosniff on every answer, this one included (README, "HTTP details").
                responseHeaders: Object.entries({ ...ANSWER_HEADERS, ...throttled.headers }).map(([name, value]) => ({ name, value })),
              },
            },
          },
          visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: `${props.name}-per-ip-rate`, sampledRequestsEnabled: true },
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', { resourceArn: props.stageArn, webAclArn: this.acl.attrArn });
  }
}
