/**
 * `npm start` ends with whoever started it: npm passes SIGTERM to the shell, not to this process, and nothing when
 * killed outright, so this process watches its ancestors up to npm's parent (`ps`) and stops when one is gone.
 */
import { spawnSync } from 'node:child_process';
import { alive } from '../../lib/cli/running-start.js';

const NPM = /(^|[\s/])npm(-cli\.js)?(\s|$)/;

function parentAndCommand(pid: number): { ppid: number; command: string } | undefined {
  const ps = spawnSync('ps', ['-o', 'ppid=', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  const match = /^\s*(\d+)\s+(.*)$/.exec(ps.stdout?.trim() ?? '');
  return match ? { ppid: Number(match[1]), command: match[2] ?? '' } : undefined;
}

export function ancestorsToWatch(): number[] {
  const chain: number[] = [];
  let pid = process.ppid;
  for (let depth = 0; depth < 6 && pid > 1; depth++) {
    chain.push(pid);
    const info = parentAndCommand(pid);
    if (!info) break;
    if (NPM.test(info.command)) {
      if (info.ppid > 1) chain.push(info.ppid);
      return chain;
    }
    pid = info.ppid;
  }
  return [process.ppid];
}

/** Calls `gone` once, when a watched ancestor has ended (or this process was handed to another parent). */
export function watchAncestors(gone: (pid: number) => void, everyMs = 500): void {
  const watched = ancestorsToWatch();
  const parent = process.ppid;
  const timer = setInterval(() => {
    const ended = process.ppid !== parent ? parent : watched.find((pid) => !alive(pid));
    if (ended === undefined) return;
    clearInterval(timer);
    gone(ended);
  }, everyMs);
  timer.unref();
}
