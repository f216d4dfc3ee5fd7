import { afterEach, describe, expect, it, vi } from 'vitest';
import { everyWithPhase } from './time';

describe('everyWithPhase', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs first after its phase, then once per period, and never again once stopped', () => {
    vi.useFakeTimers();
    const times: number[] = [];
    const start = Date.now();
    const timer = everyWithPhase(10_000, 2_500, () => times.push(Date.now() - start));
    vi.advanceTimersByTime(2_499);
    expect(times).toEqual([]);
    vi.advanceTimersByTime(30_001);
    expect(times).toEqual([2_500, 12_500, 22_500, 32_500]);
    timer.stop();
    vi.advanceTimersByTime(60_000);
    expect(times).toHaveLength(4);
  });

  it('looks with different phases in one period never fire in the same tick', () => {
    vi.useFakeTimers();
    const ticks = new Map<number, string[]>();
    const start = Date.now();
    const record = (name: string) => () => {
      const at = Date.now() - start;
      ticks.set(at, [...(ticks.get(at) ?? []), name]);
    };
    const timers = [
      everyWithPhase(10_000, 10_000, record('edge driver')),
      everyWithPhase(30_000, 32_500, record('branches')),
      everyWithPhase(60_000, 65_000, record('crons')),
    ];
    vi.advanceTimersByTime(600_000);
    expect([...ticks.values()].every((names) => names.length === 1)).toBe(true);
    expect([...ticks.values()].flat().filter((name) => name === 'crons')).toHaveLength(9);
    for (const timer of timers) timer.stop();
  });
});
