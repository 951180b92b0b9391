/** An optional custom domain: a regional domain name (TLS 1.2, ACM certificate in the stack's region) mapped under /v1. */
import { Arn, ArnFormat, Aws, CfnRule, Fn, Stack, Token } from 'aws-cdk-lib';
import { BasePathMapping, DomainName, EndpointType, type RestApi, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Construct } from 'constructs';
import { API_STAGE_NAME } from '../../lib/stacks.js';

export interface CustomDomainProps {
  readonly domainName: string;
  /** ARN of an ACM certificate for `domainName`; a regional endpoint needs it in the stack's own region. */
  readonly certificateArn: string;
  readonly api: RestApi;
}

export class CustomDomain extends DomainName {
  readonly url: string;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    requireCertificateInStackRegion(scope, props.certificateArn);
    super(scope, id, {
      domainName: props.domainName,
      certificate: Certificate.fromCertificateArn(scope, 'Certificate', props.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new BasePathMapping(scope, 'V1Mapping', {
      domainName: this,
      restApi: props.api,
      stage: props.api.deploymentStage,
      basePath: API_STAGE_NAME,
    });
    this.url = `https://${props.domainName}/${API_STAGE_NAME}`;
  }
}

/** Fails the synth when the certificate is known to be in another region; adds a template rule when the stack's region is unknown. */
function requireCertificateInStackRegion(scope: Construct, certificateArn: string): void {
  if (Token.isUnresolved(certificateArn)) return;
  const certificateRegion = Arn.split(certificateArn, ArnFormat.SLASH_RESOURCE_NAME).region;
  if (!certificateRegion) throw new Error(`certificateArn ${certificateArn} names no region`);
  const stack = Stack.of(scope);
  const rule = "a regional custom domain needs an ACM certificate in the stack's own region";
  if (Token.isUnresolved(stack.region)) {
    new CfnRule(scope, 'CertificateInStackRegion', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, certificateRegion),
          assertDescription: `certificateArn is a certificate in ${certificateRegion}, and ${rule}: deploy this stack to ${certificateRegion}, or request or import the certificate in this region`,
        },
      ],
    });
  } else if (stack.region !== certificateRegion) {
    throw new Error(
      `certificateArn ${certificateArn} is in ${certificateRegion}, but ${stack.stackName} deploys to ${stack.region}, and ${rule}: request or import the certificate in ${stack.region}, or deploy the stack to ${certificateRegion}`,
    );
  }
}
