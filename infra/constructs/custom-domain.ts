/**
 * An optional custom domain for the API: a regional API Gateway domain name with TLS 1.2 and an ACM certificate,
 * mapped under /v1 so that its base URL ends in /v1 like the execute-api one. The mapping is created beside it, in
 * the same scope, so that the logical ids it had before this construct existed stay unchanged.
 */
import { BasePathMapping, DomainName, EndpointType, type RestApi, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Construct } from 'constructs';
import { API_STAGE_NAME } from '../outputs.js';

export interface CustomDomainProps {
  /** The host name clients use, such as api.example.com. */
  readonly domainName: string;
  /** ARN of an ACM certificate for `domainName`; a regional endpoint needs it in the stack's own region. */
  readonly certificateArn: string;
  /** The API whose deployment stage is served under /v1 of the domain. */
  readonly api: RestApi;
}

export class CustomDomain extends DomainName {
  /** The base URL clients use on this domain, ending in /v1. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
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
