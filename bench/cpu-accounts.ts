// CPU time spent by the processes of a benchmark, read from /proc (Linux): per process (user +
// system seconds) and for the whole machine, so a run can say where a transfer's CPU went and
// whether the machine was saturated (other work on a shared machine shows as `other`).
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface CpuSample {
  readonly at: number;
  /** CPU seconds per named group of processes. */
  readonly groups: ReadonlyMap<string, number>;
  /** CPU seconds of the whole machine (all cores, busy time) and its cores' total time. */
  readonly machineBusy: number;
  readonly machineTotal: number;
}

/** Named groups: each a test on a process's PID and command line. */
export type Groups = Readonly<Record<string, (pid: number, cmdline: string) => boolean>>;

function processSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

export function sampleCpu(groups: Groups): CpuSample {
  const sums = new Map<string, number>(Object.keys(groups).map((g) => [g, 0]));
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const cmdline = cmdlineOf(pid);
    for (const [name, test] of Object.entries(groups)) {
      if (test(pid, cmdline)) {
        sums.set(name, sums.get(name)! + processSeconds(pid));
        break;
      }
    }
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  return {
    at: performance.now(),
    groups: sums,
    machineBusy: (total - idle) / TICKS_PER_SECOND,
    machineTotal: total / TICKS_PER_SECOND,
  };
}

/**
 * One line: CPU milliseconds per transfer of each group between two samples, the rest of the
 * machine's busy time as `other`, and how busy the machine's cores were.
 */
export function describeCpu(
  before: CpuSample,
  after: CpuSample,
  transfers: number,
  unit = 'transfer',
): string {
  let grouped = 0;
  const parts: string[] = [];
  for (const [name, end] of after.groups) {
    const spent = end - (before.groups.get(name) ?? 0);
    grouped += spent;
    parts.push(`${name} ${((spent * 1000) / transfers).toFixed(2)}`);
  }
  const busy = after.machineBusy - before.machineBusy;
  parts.push(`other ${(((busy - grouped) * 1000) / transfers).toFixed(2)}`);
  const cores = (after.machineTotal - before.machineTotal) / ((after.at - before.at) / 1000);
  const busyFraction = busy / (after.machineTotal - before.machineTotal);
  return `CPU ms per ${unit}: ${parts.join(', ')}; cores busy ${(busyFraction * 100).toFixed(0)}% of ${cores.toFixed(1)}`;
}
