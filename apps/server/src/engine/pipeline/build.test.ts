import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installHasWork } from './build';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function app(pkg: string | null): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-install-'));
  dirs.push(dir);
  if (pkg !== null) fs.writeFileSync(path.join(dir, 'package.json'), pkg);
  return dir;
}

describe('installHasWork', () => {
  it('is false for a package.json without dependencies, workspaces or install scripts', async () => {
    expect(await installHasWork(app('{"name":"a","scripts":{"start":"node server.js"}}'))).toBe(false);
    expect(await installHasWork(app('{"name":"a","dependencies":{},"devDependencies":{}}'))).toBe(false);
  });

  it('is true for dependencies of any kind, workspaces, install scripts, and anything it cannot read', async () => {
    expect(await installHasWork(app('{"dependencies":{"express":"^5.0.0"}}'))).toBe(true);
    expect(await installHasWork(app('{"devDependencies":{"vite":"^7.0.0"}}'))).toBe(true);
    expect(await installHasWork(app('{"optionalDependencies":{"fsevents":"*"}}'))).toBe(true);
    expect(await installHasWork(app('{"workspaces":["packages/*"]}'))).toBe(true);
    expect(await installHasWork(app('{"scripts":{"postinstall":"node setup.js"}}'))).toBe(true);
    expect(await installHasWork(app('{"scripts":{"prepare":"husky"}}'))).toBe(true);
    expect(await installHasWork(app('{ not json'))).toBe(true);
    expect(await installHasWork(app(null))).toBe(true);
  });
});
