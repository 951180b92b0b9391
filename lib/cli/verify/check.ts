/** What a check of `verify` is, and the context the checks share as steps of one client session. */
import type { Limits } from '../../plans.js';
import type { Stage } from '../../stacks.js';
import type { Answer, Send } from './http.js';

export interface VerifyContext {
  send: Send;
  stage: Stage;
  apiKey: string;
  customerId: string;
  limits: Limits;
  /** Unique to the run; the categories it creates are named after it, so an operator can find them. */
  runName: string;
  /** Categories the run created, for the clean-up and the report. */
  created: { id: number; name: string }[];
  /** The first answer to the create with an Idempotency-Key, which its replay must repeat. */
  firstCreate?: Answer;
  /** The X-RateLimit-Reset of the minute the 429 check used up. */
  usedUpMinuteReset?: number;
}

export interface CheckOutcome {
  /** What was wrong; empty when the check passed. */
  problems: string[];
  detail?: string;
}

export interface Check {
  name: string;
  run(context: VerifyContext): Promise<CheckOutcome>;
}

export type CheckResult = CheckOutcome & { check: string; passed: boolean };

/** Runs a check; one that throws (no answer from the API, DynamoDB unreachable) failed with that reason. */
export async function runCheck(check: { name: string; run(): Promise<CheckOutcome> }): Promise<CheckResult> {
  try {
    const outcome = await check.run();
    // A problem two answers share (or two steps of a check find) is said once.
    const problems = [...new Set(outcome.problems)];
    return { check: check.name, passed: problems.length === 0, problems, ...(outcome.detail ? { detail: outcome.detail } : {}) };
  } catch (error) {
    return { check: check.name, passed: false, problems: [error instanceof Error ? error.message : String(error)] };
  }
}
