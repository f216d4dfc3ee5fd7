import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { directScriptCommand } from './package-script';

const pkg = (scripts: Record<string, string>) => ({ name: 'shop', version: '1.2.3', scripts });

describe('directScriptCommand', () => {
  it('runs a start script itself, with node_modules/.bin on PATH and the npm variables', () => {
    for (const command of ['npm start', 'npm run start', 'pnpm start', 'yarn run start', 'bun run start']) {
      expect(directScriptCommand(command, pkg({ start: 'node server.js' }))).toBe(
        `export PATH="$PWD/node_modules/.bin:$PATH" npm_lifecycle_event='start' npm_lifecycle_script='node server.js' npm_package_name='shop' npm_package_version='1.2.3'; exec node server.js`,
      );
    }
  });

  it('keeps the package manager where it does something: hooks, unknown scripts, arguments, built-in commands', () => {
    expect(directScriptCommand('npm start', pkg({ prestart: 'node migrate.js', start: 'node s.js' }))).toBe('npm start');
    expect(directScriptCommand('npm run serve', pkg({ serve: 'node s.js', postserve: 'echo' }))).toBe('npm run serve');
    expect(directScriptCommand('npm run missing', pkg({ start: 'node s.js' }))).toBe('npm run missing');
    expect(directScriptCommand('npm run start -- --port 1', pkg({ start: 'node s.js' }))).toBe('npm run start -- --port 1');
    expect(directScriptCommand('yarn install', pkg({ install: 'node s.js' }))).toBe('yarn install');
    expect(directScriptCommand('npm start', pkg({ start: 'npm run serve', serve: 'node s.js' }))).toBe('npm start');
    expect(directScriptCommand('node server.js', pkg({ start: 'node s.js' }))).toBe('node server.js');
    expect(directScriptCommand('npm start', null)).toBe('npm start');
  });

  it('runs a script with shell syntax or leading variables as written (no exec)', () => {
    expect(directScriptCommand('npm start', pkg({ start: 'NODE_ENV=production node s.js' }))).toMatch(
      /; NODE_ENV=production node s\.js$/,
    );
    const withSyntax = directScriptCommand(
      'npm run start:prod',
      pkg({ 'start:prod': "echo a && echo 'done' $npm_lifecycle_event" }),
    );
    expect(withSyntax).not.toContain('exec');
    expect(execFileSync('/bin/sh', ['-c', withSyntax], { encoding: 'utf8' })).toBe('a\ndone start:prod\n');
  });

  it('gives the script what npm would, in a real shell', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-script-'));
    fs.mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'node_modules/.bin/hello'),
      '#!/bin/sh\necho "hello $npm_package_name@$npm_package_version $npm_lifecycle_event"\n',
      {
        mode: 0o755,
      },
    );
    const command = directScriptCommand('npm start', pkg({ start: 'hello' }));
    expect(execFileSync('/bin/sh', ['-c', command], { cwd: dir, encoding: 'utf8' })).toBe('hello shop@1.2.3 start\n');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
