/**
 * Where a running `npm start` can be found: it writes its DynamoDB endpoint and gateway URLs to a small file in its
 * DATA_DIR (`npm-start.json`) and removes it when it stops, so that the CLI reaches it whatever ports it was given.
 * A file whose process is gone (a start killed outright) is ignored.
 */
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/** The `npm start` running with this DATA_DIR, if any. */
export function readRunningStart(dataDir: string): RunningStart | undefined {
  let text: string;
  try {
    text = readFileSync(runningStartFile(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  const parsed = v.safeParse(
    RunningStartSchema,
    (() => {
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    })(),
  );
  return parsed.success && alive(parsed.output.pid) ? parsed.output : undefined;
}
