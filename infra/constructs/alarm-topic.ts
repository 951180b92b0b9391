/**
 * Where a stage's alarms notify: the stack's own SNS topic, which this account's CloudWatch alarms may publish to,
 * optionally subscribed by e-mail, and an existing topic of the operator's besides it.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import type { Stage } from '../../lib/stacks.js';

export interface AlarmTopicProps {
  readonly stage: Stage;
  /** @default - no subscription; subscribe to the topic by other means */
  readonly alarmEmail?: string;
  /** An existing SNS topic every alarm notifies besides the stack's own; its policy must let CloudWatch publish. */
  readonly alarmTopicArn?: string;
}

/**
 * The topic is created in `scope` itself (the monitoring construct), not in a construct of its own, so that its
 * logical id, and with it the topic and its subscriptions, stay what they were.
 */
export function alarmTopic(scope: Construct, props: AlarmTopicProps): { topic: Topic; destinations: readonly ITopic[] } {
  const topic = new Topic(scope, 'AlarmTopic', { displayName: `Pet Store ${props.stage} alarms`, enforceSSL: true });
  // A topic policy replaces SNS's default policy, which is what lets same-account CloudWatch alarms publish: with
  // enforceSSL's Deny alone CloudWatch is implicitly denied and every alarm action fails, visible only in the
  // alarm's history. So CloudWatch is allowed to publish, for this account's alarms only (the confused-deputy
  // conditions AWS recommends); the SSL-only Deny still applies to it as to everyone.
  const stack = Stack.of(scope);
  topic.addToResourcePolicy(
    new PolicyStatement({
      sid: 'AllowThisAccountsAlarmsToPublish',
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'cloudwatch',
            resource: 'alarm',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
  );
  if (props.alarmEmail) topic.addSubscription(new EmailSubscription(props.alarmEmail));
  const destinations: ITopic[] = [topic];
  if (props.alarmTopicArn) destinations.push(Topic.fromTopicArn(scope, 'ExistingAlarmTopic', props.alarmTopicArn));
  return { topic, destinations };
}
