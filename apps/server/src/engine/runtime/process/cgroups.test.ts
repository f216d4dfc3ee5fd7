/**
 * The files the cgroup code writes, checked on folders shaped like the two hierarchies (the real
 * enforcement is checked by the driver's memory-limit test where the machine allows it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CgroupSupport, cgroupPids, createCgroup, detectCgroups, procsFiles, removeCgroup } from './cgroups';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-cgroups-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const read = (file: string) => fs.readFileSync(file, 'utf8');

describe('cgroups', () => {
  it('says why there are no limits when turned off or missing', () => {
    expect(detectCgroups({ setting: 'off' })).toEqual({ kind: 'none', reason: 'cgroups are turned off' });
    expect(detectCgroups({ setting: 'auto', root: path.join(root, 'nothing') })).toMatchObject({ kind: 'none' });
  });

  it('finds cgroup v1 controllers it may write and writes the v1 limit files', async () => {
    const v1 = path.join(root, 'v1');
    for (const controller of ['memory', 'cpu', 'pids']) {
      fs.mkdirSync(path.join(v1, controller), { recursive: true });
      fs.writeFileSync(path.join(v1, controller, 'cgroup.procs'), '');
    }
    const support = detectCgroups({ setting: 'auto', root: v1, parentName: 'lb' });
    expect(support).toEqual({
      kind: 'v1',
      parents: { memory: path.join(v1, 'memory/lb'), cpu: path.join(v1, 'cpu/lb'), pids: path.join(v1, 'pids/lb') },
      missing: [],
    });
    const dirs = createCgroup(support, 'app-1', { memoryMb: 64, cpuPercent: 150, pids: 100 });
    expect(dirs).toEqual([path.join(v1, 'memory/lb/app-1'), path.join(v1, 'cpu/lb/app-1'), path.join(v1, 'pids/lb/app-1')]);
    expect(read(path.join(dirs[0]!, 'memory.limit_in_bytes'))).toBe(String(64 * 1024 * 1024));
    expect(read(path.join(dirs[1]!, 'cpu.cfs_period_us'))).toBe('100000');
    expect(read(path.join(dirs[1]!, 'cpu.cfs_quota_us'))).toBe('150000');
    expect(read(path.join(dirs[2]!, 'pids.max'))).toBe('100');
    expect(procsFiles(dirs)[0]).toBe(path.join(v1, 'memory/lb/app-1/cgroup.procs'));
    createCgroup(support, 'app-1', { memoryMb: null, cpuPercent: null, pids: null });
    expect(read(path.join(dirs[0]!, 'memory.limit_in_bytes'))).toBe('-1');
    expect(read(path.join(dirs[1]!, 'cpu.cfs_quota_us'))).toBe('-1');
    expect(read(path.join(dirs[2]!, 'pids.max'))).toBe('max');
    expect(cgroupPids(dirs)).toEqual([]);
    for (const dir of dirs) for (const file of fs.readdirSync(dir)) fs.rmSync(path.join(dir, file));
    expect(await removeCgroup(dirs)).toBe(true);
    for (const dir of dirs) expect(fs.existsSync(dir)).toBe(false);
  });

  it('writes the cgroup v2 limit files', () => {
    const parent = path.join(root, 'v2', 'launchbay');
    fs.mkdirSync(parent, { recursive: true });
    const support: CgroupSupport = { kind: 'v2', parent, controllers: ['memory', 'cpu', 'pids'], missing: [] };
    const [dir] = createCgroup(support, 'app-2', { memoryMb: 128, cpuPercent: 50, pids: 32 });
    expect(dir).toBe(path.join(parent, 'app-2'));
    expect(read(path.join(dir!, 'memory.max'))).toBe(String(128 * 1024 * 1024));
    expect(read(path.join(dir!, 'memory.swap.max'))).toBe('0');
    expect(read(path.join(dir!, 'cpu.max'))).toBe('50000 100000');
    expect(read(path.join(dir!, 'pids.max'))).toBe('32');
    createCgroup(support, 'app-2', { memoryMb: null, cpuPercent: null, pids: null });
    expect(read(path.join(dir!, 'memory.max'))).toBe('max');
    expect(read(path.join(dir!, 'cpu.max'))).toBe('max 100000');
  });
});
