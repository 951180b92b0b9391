/** `npm-start.json` in DATA_DIR: where a running `npm start` is (its DynamoDB and gateways), ignored once its process is gone. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';

const RunningStartSchema = v.object({
  pid: v.pipe(v.number(), v.integer()),
  dynamoEndpoint: v.string(),
  gateways: v.record(v.string(), v.string()),
});
export type RunningStart = v.InferOutput<typeof RunningStartSchema>;

export const runningStartFile = (dataDir: string) => join(dataDir, 'npm-start.json');

export function writeRunningStart(dataDir: string, state: RunningStart): void {
  writeFileSync(runningStartFile(dataDir), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

export function removeRunningStart(dataDir: string): void {
  rmSync(runningStartFile(dataDir), { force: true });
}

/** Whether a process with this pid exists (EPERM: it does, but belongs to someone else). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

export function readRunningStart(dataDir: string): RunningStart | undefined {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(runningStartFile(dataDir), 'utf8'));
  } catch {
    return undefined;
  }
  const parsed = v.safeParse(RunningStartSchema, json);
  return parsed.success && alive(parsed.output.pid) ? parsed.output : undefined;
}
