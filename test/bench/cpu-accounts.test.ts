// The benchmarks' CPU accounts from /proc: a process that sleeps is seen going to sleep, and the
// line printed divides each group's switches by the units of work.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type CpuSample, describeSwitches, sampleCpu } from '../../bench/cpu-accounts.js';

describe('bench: CPU accounts', { skip: process.platform !== 'linux' ? 'reads /proc' : false }, () => {
  it("counts a process's threads going to sleep", async () => {
    const groups = { self: (pid: number) => pid === process.pid };
    const before = sampleCpu(groups);
    for (let i = 0; i < 20; i++) await sleep(2);
    const after = sampleCpu(groups);
    const slept = after.switches.get('self')!.slept - before.switches.get('self')!.slept;
    assert.ok(slept >= 20, `slept ${slept} times`);
  });

  it('prints the switches per unit of work', () => {
    const sample = (slept: number, preempted: number): CpuSample => ({
      at: 0,
      groups: new Map([['api', 0]]),
      kernel: new Map([['api', 0]]),
      switches: new Map([['api', { slept, preempted }]]),
      machineBusy: 0,
      machineTotal: 0,
    });
    assert.equal(
      describeSwitches(sample(100, 10), sample(350, 30), 100, 'request'),
      'context switches per request: api 2.5 slept / 0.2 preempted',
    );
  });
});
