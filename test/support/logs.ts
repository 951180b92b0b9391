/**
 * Log lines in tests. lib/log.ts writes each line to a sink when one is set: every test file gets one (setup.ts,
 * `quietLogs`) that holds the lines logged since the previous test ended and prints them only if the running test
 * fails, and appends every line to test/artifacts/logs/<test file>.log (git-ignored), where lines of hooks and of
 * background work stay too. So a passing run prints no log line, and a failing test shows its own. The run's level
 * is WARN (vitest.config.ts), so those are the warnings and errors; a test that needs more sets it.
 *
 * Child processes (npm start, the CLI as a process, the bundles) are not this process: they print as they do for
 * their users, and their tests read or discard that output themselves.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, beforeEach, vi } from 'vitest';
import type { LogSink } from '../../lib/log.js';

type SetSink = (sink: LogSink | undefined) => void;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../artifacts/logs/', import.meta.url));

let held: string[] = [];
let file: string | undefined;
/** lib/log.ts's setLogSink, of the module the test file imported. */
let setFileSink: SetSink | undefined;

/** The sink of this test file: held for the running test, and kept in the file's log. */
const testSink: LogSink = (line) => {
  held.push(line);
  if (file) appendFileSync(file, `${line}\n`);
};

/** Installs the test sink for the test file at `testPath` (setup.ts calls it before the file's imports). */
export function quietLogs(testPath: string): void {
  file = path.join(ARTIFACTS, `${path.relative(ROOT, testPath)}.log`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '');
  beforeAll(async () => {
    // Imported here, after the test file's own imports, not before them: lib/log.ts reads the log level when it
    // loads, and a test may set the level's variables first (vi.hoisted), as Lambda does before a cold start.
    const { setLogSink } = await import('../../lib/log.js');
    setFileSink = setLogSink;
    setLogSink(testSink);
  });
  beforeEach(({ onTestFailed, onTestFinished }) => {
    // The lines since the previous test ended (the file's beforeAll, this test's beforeEach), then the test's own.
    const lines = held;
    onTestFailed(() => {
      if (lines.length === 0) return;
      console.error(`${lines.length} log line(s) since the previous test:\n${lines.join('\n')}`);
    });
    onTestFinished(() => {
      held = [];
    });
  });
}

/**
 * The sink for a lib/log.js imported afresh (`vi.resetModules()`, test/support/dynamo-calls.ts `newInstance`): a
 * new module has no sink of its own and would print.
 */
export function quietFreshLogs(setSink: SetSink): void {
  setSink(testSink);
}

function setTestFileSink(sink: LogSink | undefined): void {
  if (!setFileSink) throw new Error('logs are captured in a test or a hook, once setup.ts has set the test sink');
  setFileSink(sink);
}

/**
 * The log lines written while a test captures them, for tests that assert on what is logged; they still reach the
 * test sink, so a failing test shows them. `stop` hands the lines back to the test sink alone.
 */
export function captureLogs(setSink: SetSink = setTestFileSink) {
  const lines: string[] = [];
  setSink((line) => {
    lines.push(line);
    testSink(line);
  });
  return { lines, stop: () => setSink(testSink) };
}

/**
 * Everything written to a stream (stdout or stderr) while a test captures it, for lines that do not go through the
 * logger: the metrics' EMF lines, console output, SDK warnings. `swallow` says which chunks are kept from the
 * terminal; the others are written as usual. `stop` puts the stream back.
 */
export function captureWrites(stream: NodeJS.WriteStream, swallow: (text: string) => boolean = () => false) {
  const chunks: string[] = [];
  const write = stream.write.bind(stream);
  const spy = vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk);
    chunks.push(text);
    // The chunk goes on with the arguments it came with (an encoding, a callback), whichever overload they match.
    return swallow(text) || Reflect.apply(write, stream, [chunk, ...rest]);
  });
  return { chunks, stop: () => spy.mockRestore() };
}
