/** Where a stage's alarms notify (its own SNS topic, an e-mail, an existing topic), and the alarms that notify them. */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import { Alarm, type AlarmProps, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
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

/** Created in `scope` itself (the monitoring construct), so the topic's logical id stays what it was. */
export function alarmTopic(scope: Construct, props: AlarmTopicProps): { topic: Topic; destinations: readonly ITopic[] } {
  const topic = new Topic(scope, 'AlarmTopic', { displayName: `Pet Store ${props.stage} alarms`, enforceSSL: true });
  // A topic policy replaces SNS's default one, which is what lets same-account CloudWatch alarms publish: with
  // enforceSSL's Deny alone every alarm action fails. So CloudWatch may publish, for this account's
  // alarms only (the confused-deputy conditions AWS recommends).
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

/**
 * An alarm (missing data not breaching unless `props` says otherwise) that notifies `topics` when it fires and when
 * it clears: whoever was told it fired knows when it is over (and when a redeploy may start after a rollout alarm).
 */
export function notifyingAlarm(scope: Construct, id: string, topics: readonly ITopic[], props: AlarmProps): Alarm {
  const alarm = new Alarm(scope, id, props.treatMissingData ? props : { treatMissingData: TreatMissingData.NOT_BREACHING, ...props });
  for (const topic of topics) {
    alarm.addAlarmAction(new SnsAction(topic));
    alarm.addOkAction(new SnsAction(topic));
  }
  return alarm;
}
