/**
 * Only settings that exist: a misspelled key in a stage's object in cdk.json, a misspelled
 * `-c petstore:<stage>:<key>` and a stage that does not exist fail the synth, naming the key, its stage and the
 * setting it probably meant, where one is close. The rest of cdk.json's context (CDK's feature flags) is not ours
 * to check.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/pet-store-app.js';
import { CDK_JSON_CONTEXT, CDK_JSON_SETTINGS } from './synth-app.js';

/** The app built (not synthesized) from cdk.json's context, with production's alarm opt-out, and `context` over it. */
const build = (context: Record<string, unknown>) =>
  buildApp({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], 'petstore:production:alarmOptOut': 'true', ...context } });

/** cdk.json's settings with `settings` added to production's object. */
const inProduction = (settings: Record<string, unknown>) => ({
  petstore: { ...CDK_JSON_SETTINGS, production: { ...CDK_JSON_SETTINGS.production, ...settings } },
});

describe('an unknown setting', () => {
  it("in a stage's object in cdk.json fails the synth, naming the key, the stage and the setting it probably meant", () => {
    expect(() => build(inProduction({ banSecond: 5 }))).toThrow(
      /production.*unknown setting petstore\.production\.banSecond in cdk\.json.*did you mean banSeconds\?/,
    );
    expect(() => build(inProduction({ throttleRatelimit: 9999 }))).toThrow(
      /petstore\.production\.throttleRatelimit.*did you mean throttleRateLimit\?/,
    );
  });

  it('as a -c override fails the synth the same way', () => {
    expect(() => build({ 'petstore:production:banSecond': '5' })).toThrow(
      /production.*unknown setting petstore:production:banSecond.*did you mean banSeconds\?/,
    );
    expect(() => build({ 'petstore:staging:throttleRatelimit': '9999' })).toThrow(
      /staging.*unknown setting petstore:staging:throttleRatelimit.*did you mean throttleRateLimit\?/,
    );
  });

  it('suggests a setting that differs in case only, and none when nothing is close', () => {
    expect(() => build({ 'petstore:production:BANSECONDS': '5' })).toThrow(/petstore:production:BANSECONDS.*did you mean banSeconds\?/);
    let message = '';
    try {
      build({ 'petstore:production:pagerDuty': 'x' });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/unknown setting petstore:production:pagerDuty/);
    expect(message).not.toMatch(/did you mean/);
  });

  it('names every unknown key at once', () => {
    expect(() => build({ ...inProduction({ banSecond: 5 }), 'petstore:production:alarmEmial': 'a@example.com' })).toThrow(
      /banSecond.*alarmEmial.*did you mean alarmEmail\?/,
    );
  });

  it('keeps the message of a setting that is no longer read', () => {
    expect(() => build(inProduction({ wafEnabled: false }))).toThrow(/remove wafEnabled/);
    expect(() => build({ 'petstore:staging:wafEnabled': 'false' })).toThrow(/remove wafEnabled/);
  });
});

describe('an unknown stage', () => {
  it('in cdk.json or on the command line fails the synth, naming the stages there are', () => {
    expect(() => build({ petstore: { ...CDK_JSON_SETTINGS, prod: { banSeconds: 5 } } })).toThrow(
      /unknown stage prod in cdk\.json's petstore; the stages are staging, production/,
    );
    expect(() => build({ 'petstore:Production:banSeconds': '5' })).toThrow(
      /unknown stage Production in petstore:Production:banSeconds \(did you mean production\?\)/,
    );
  });

  it('or a key of the project that is not petstore:<stage>:<key>, or settings that are not an object', () => {
    expect(() => build({ 'petstore.production.banSeconds': '5' })).toThrow(
      /petstore\.production\.banSeconds.*-c petstore:<stage>:<key>=<value>/,
    );
    expect(() => build({ 'petstore:production': '5' })).toThrow(/petstore:production.*-c petstore:<stage>:<key>=<value>/);
    // The prefix in another letter case is the project's key misspelled, not someone else's.
    expect(() => build({ 'Petstore:production:banSeconds': '5' })).toThrow(/Petstore:production:banSeconds.*-c petstore:<stage>/);
    expect(() => build({ petStore_production_banSeconds: '5' })).toThrow(/petStore_production_banSeconds/);
    expect(() => build({ petstore: 'staging' })).toThrow(/petstore in cdk\.json must be an object/);
    expect(() => build({ petstore: { ...CDK_JSON_SETTINGS, staging: 5 } })).toThrow(/petstore\.staging in cdk\.json must be an object/);
  });
});

describe('what stays allowed', () => {
  it("a correct -c override, and CDK's own context keys beside the project's: its feature flags and its aws:cdk keys", () => {
    const { stacks } = build({
      'petstore:production:banSeconds': '600',
      '@aws-cdk/aws-lambda:someFutureFlag': true,
      'aws-cdk:enableDiffNoFail': true,
      'aws:cdk:version-reporting': false,
    });
    expect(Object.keys(CDK_JSON_CONTEXT).filter((key) => key.startsWith('@aws-cdk/')).length).toBeGreaterThan(5);
    const banSeconds = Object.values(Template.fromStack(stacks.production).findResources('AWS::Lambda::Function')).map(
      (fn) => fn.Properties.Environment?.Variables?.BAN_SECONDS,
    );
    expect(banSeconds).toContain('600');
  });
});
