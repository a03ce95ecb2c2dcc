// CPU time spent by the processes of a benchmark, read from /proc (Linux): per process (user +
// system seconds) and for the whole machine, so a run can say where a transfer's CPU went and
// whether the machine was saturated (other work on a shared machine shows as `other`); and how
// often each group's threads went to sleep (voluntary context switches: each one a wake-up to
// pay for when the next event comes) or were preempted by another runnable thread.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface CpuSample {
  readonly at: number;
  /** CPU seconds per named group of processes. */
  readonly groups: ReadonlyMap<string, number>;
  /** Of which in the kernel (system time: syscalls, loopback TCP), per group. */
  readonly kernel: ReadonlyMap<string, number>;
  /** Context switches of all the group's threads: went to sleep, and preempted. */
  readonly switches: ReadonlyMap<string, { readonly slept: number; readonly preempted: number }>;
  /** CPU seconds of the whole machine (all cores, busy time) and its cores' total time. */
  readonly machineBusy: number;
  readonly machineTotal: number;
}

/** Named groups: each a test on a process's PID and command line. */
export type Groups = Readonly<Record<string, (pid: number, cmdline: string) => boolean>>;

/** User and system (kernel) CPU seconds of a process, 0 for one that is gone. */
function processSeconds(pid: number): { user: number; kernel: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / TICKS_PER_SECOND, kernel: Number(fields[12]) / TICKS_PER_SECOND };
  } catch {
    return { user: 0, kernel: 0 };
  }
}

/** Voluntary and involuntary context switches summed over a process's threads; 0 for one that is gone. */
function processSwitches(pid: number): { slept: number; preempted: number } {
  let slept = 0;
  let preempted = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      slept += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      preempted += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
  } catch {
    // gone meanwhile
  }
  return { slept, preempted };
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
  const kernel = new Map<string, number>(Object.keys(groups).map((g) => [g, 0]));
  const switches = new Map(Object.keys(groups).map((g) => [g, { slept: 0, preempted: 0 }]));
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const cmdline = cmdlineOf(pid);
    for (const [name, test] of Object.entries(groups)) {
      if (test(pid, cmdline)) {
        const spent = processSeconds(pid);
        sums.set(name, sums.get(name)! + spent.user + spent.kernel);
        kernel.set(name, kernel.get(name)! + spent.kernel);
        const counted = processSwitches(pid);
        const sum = switches.get(name)!;
        sum.slept += counted.slept;
        sum.preempted += counted.preempted;
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
    kernel,
    switches,
    machineBusy: (total - idle) / TICKS_PER_SECOND,
    machineTotal: total / TICKS_PER_SECOND,
  };
}

/**
 * One line: CPU milliseconds per transfer of each group between two samples (in brackets the
 * part spent in the kernel), the rest of the machine's busy time as `other`, and how busy the
 * machine's cores were.
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
    const inKernel = (after.kernel.get(name) ?? 0) - (before.kernel.get(name) ?? 0);
    grouped += spent;
    const perUnit = (seconds: number) => ((seconds * 1000) / transfers).toFixed(2);
    parts.push(`${name} ${perUnit(spent)} (kernel ${perUnit(inKernel)})`);
  }
  const busy = after.machineBusy - before.machineBusy;
  parts.push(`other ${(((busy - grouped) * 1000) / transfers).toFixed(2)}`);
  const cores = (after.machineTotal - before.machineTotal) / ((after.at - before.at) / 1000);
  const busyFraction = busy / (after.machineTotal - before.machineTotal);
  return `CPU ms per ${unit}: ${parts.join(', ')}; cores busy ${(busyFraction * 100).toFixed(0)}% of ${cores.toFixed(1)}`;
}

/**
 * One line: per unit, how many times each group's threads went to sleep and were preempted
 * between two samples (threads that ended between them are not counted).
 */
export function describeSwitches(
  before: CpuSample,
  after: CpuSample,
  units: number,
  unit = 'transfer',
): string {
  const parts = [...after.switches].map(([name, end]) => {
    const start = before.switches.get(name) ?? { slept: 0, preempted: 0 };
    const per = (n: number) => (n / units).toFixed(1);
    return `${name} ${per(end.slept - start.slept)} slept / ${per(end.preempted - start.preempted)} preempted`;
  });
  return `context switches per ${unit}: ${parts.join(', ')}`;
}
