import { cp, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuildOverrides, BuildPlan } from '../build-plan';
import { type BuildConfigError, resolveBuildPlan } from './resolve';

let root: string;
let count = 0;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'launchbay-config-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A new app folder with these files (objects are written as JSON). */
async function app(files: Record<string, string | object>): Promise<string> {
  const dir = path.join(root, `app-${++count}`);
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

/** A copy of a template of create-vite, as `npm create vite` writes it. */
async function viteTemplate(name: string, extra: Record<string, string | object> = {}): Promise<string> {
  const createVite = path.dirname(createRequire(import.meta.url).resolve('create-vite/package.json'));
  const dir = path.join(root, `${name}-${++count}`);
  await cp(path.join(createVite, name), dir, { recursive: true });
  await rename(path.join(dir, '_gitignore'), path.join(dir, '.gitignore'));
  for (const [file, content] of Object.entries(extra)) {
    await writeFile(path.join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

async function plan(dir: string, overrides: BuildOverrides = {}): Promise<BuildPlan> {
  const result = await resolveBuildPlan(dir, overrides);
  if ('errors' in result) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
  return result;
}

async function errors(dir: string, overrides: BuildOverrides = {}): Promise<BuildConfigError[]> {
  const result = await resolveBuildPlan(dir, overrides);
  if (!('errors' in result)) throw new Error(`expected errors, got the plan of ${result.preset}`);
  return result.errors;
}

const web = (command: string) => [{ type: 'web', command }];

describe('Vite apps (create-vite templates)', () => {
  it.each([['template-react-ts'], ['template-vanilla'], ['template-vue'], ['template-svelte']])(
    '%s is a Vite single-page app served from dist',
    async (template) => {
      const result = await plan(await viteTemplate(template));
      expect(result).toEqual({
        preset: 'vite',
        presetName: 'Vite',
        packageManager: 'npm',
        installCommand: 'npm install',
        buildCommand: 'npm run build',
        kind: 'static',
        outputDirectory: 'dist',
        processes: [],
        port: null,
        healthCheckPath: '/',
        requiredEnv: [],
        cacheDirectories: [],
        spaFallback: true,
        crons: [],
        warnings: [],
        sources: {
          installCommand: 'detected',
          buildCommand: 'detected',
          outputDirectory: 'detected',
          processes: 'detected',
          kind: 'detected',
          preset: 'detected',
          presetName: 'detected',
          packageManager: 'detected',
          cacheDirectories: 'detected',
          spaFallback: 'detected',
          port: 'detected',
          healthCheckPath: 'detected',
          requiredEnv: 'detected',
          crons: 'detected',
        },
      });
    },
  );

  it('installs with npm ci beside a package-lock.json, and serves the outDir of vite.config', async () => {
    const dir = await viteTemplate('template-react-ts', {
      'package-lock.json': { lockfileVersion: 3 },
      'vite.config.ts':
        "import { defineConfig } from 'vite'\nexport default defineConfig({ build: { outDir: './public-build/' } })\n",
    });
    const result = await plan(dir);
    expect(result.installCommand).toBe('npm ci');
    expect(result.outputDirectory).toBe('public-build');
  });
});

describe('static HTML', () => {
  it('serves the root directory of an index.html without package.json, with nothing to install or build', async () => {
    const result = await plan(await app({ 'index.html': '<h1>hi</h1>', 'style.css': 'h1{}' }));
    expect(result).toMatchObject({
      preset: 'static',
      presetName: 'Static HTML',
      packageManager: null,
      installCommand: null,
      buildCommand: null,
      kind: 'static',
      outputDirectory: '.',
      processes: [],
      spaFallback: false,
    });
  });
});

describe('Next.js', () => {
  const pkg = {
    scripts: { dev: 'next dev', build: 'next build', start: 'next start' },
    dependencies: { next: '15.3.0', react: '19.1.0', 'react-dom': '19.1.0' },
  };

  it('runs its start script (next start) without standalone output, and keeps .next/cache', async () => {
    const result = await plan(await app({ 'package.json': pkg, 'next.config.ts': 'export default {}\n' }));
    expect(result).toMatchObject({
      preset: 'nextjs',
      presetName: 'Next.js',
      installCommand: 'npm install',
      buildCommand: 'npm run build',
      kind: 'server',
      outputDirectory: null,
      processes: web('npm run start'),
      cacheDirectories: ['.next/cache'],
      spaFallback: false,
    });
  });

  it('runs next start through the package manager when there is no start script', async () => {
    const dir = await app({ 'package.json': { dependencies: { next: '15.3.0' } }, 'yarn.lock': '# yarn lockfile v1\n' });
    const result = await plan(dir);
    expect(result.buildCommand).toBe('yarn next build');
    expect(result.processes).toEqual(web('yarn next start'));
    expect(result.installCommand).toBe('yarn install --frozen-lockfile');
  });

  it('runs .next/standalone/server.js with output: standalone, its static assets copied after the build', async () => {
    const dir = await app({
      'package.json': pkg,
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'next.config.mjs':
        "/** @type {import('next').NextConfig} */\nconst nextConfig = {\n  output: 'standalone',\n};\nexport default nextConfig;\n",
    });
    const result = await plan(dir);
    expect(result).toMatchObject({
      packageManager: 'pnpm',
      installCommand: 'pnpm install --frozen-lockfile',
      buildCommand:
        'pnpm run build && cp -R .next/static .next/standalone/.next/static && if [ -d public ]; then cp -R public .next/standalone/public; fi',
      kind: 'server',
      processes: web('node .next/standalone/server.js'),
      cacheDirectories: ['.next/cache'],
    });
  });

  it('serves out/ with output: export', async () => {
    const dir = await app({ 'package.json': pkg, 'next.config.js': "module.exports = { output: 'export' };\n" });
    expect(await plan(dir)).toMatchObject({ kind: 'static', outputDirectory: 'out', processes: [], spaFallback: false });
  });
});

describe('Nuxt', () => {
  it('runs the Nitro server of .output', async () => {
    const dir = await app({
      'package.json': {
        scripts: { build: 'nuxt build', dev: 'nuxt dev', preview: 'nuxt preview' },
        dependencies: { nuxt: '^3.17.0' },
      },
      'nuxt.config.ts': 'export default defineNuxtConfig({})\n',
    });
    expect(await plan(dir)).toMatchObject({
      preset: 'nuxtjs',
      presetName: 'Nuxt',
      buildCommand: 'npm run build',
      kind: 'server',
      outputDirectory: null,
      processes: web('node .output/server/index.mjs'),
      cacheDirectories: [],
    });
  });

  it('serves .output/public when its build generates a static site', async () => {
    const dir = await app({ 'package.json': { scripts: { build: 'nuxt generate' }, dependencies: { nuxt: '^3.17.0' } } });
    expect(await plan(dir)).toMatchObject({ kind: 'static', outputDirectory: '.output/public', processes: [] });
  });
});

describe('Astro', () => {
  const pkg = {
    scripts: { dev: 'astro dev', build: 'astro build', preview: 'astro preview' },
    dependencies: { astro: '^5.9.0' },
  };

  it('serves dist/ when static, keeping its asset cache', async () => {
    const dir = await app({
      'package.json': pkg,
      'astro.config.mjs': "import { defineConfig } from 'astro/config';\nexport default defineConfig({});\n",
    });
    expect(await plan(dir)).toMatchObject({
      preset: 'astro',
      presetName: 'Astro',
      buildCommand: 'npm run build',
      kind: 'static',
      outputDirectory: 'dist',
      processes: [],
      cacheDirectories: ['node_modules/.astro'],
      spaFallback: false,
      warnings: [],
    });
  });

  it('runs dist/server/entry.mjs with the Node adapter', async () => {
    const dir = await app({
      'package.json': { ...pkg, dependencies: { ...pkg.dependencies, '@astrojs/node': '^9.2.0' } },
      'astro.config.mjs':
        "import { defineConfig } from 'astro/config';\nimport node from '@astrojs/node';\nexport default defineConfig({ output: 'server', adapter: node({ mode: 'standalone' }) });\n",
    });
    expect(await plan(dir)).toMatchObject({
      kind: 'server',
      outputDirectory: null,
      processes: web('node dist/server/entry.mjs'),
    });
  });

  it('warns that another adapter cannot run its server here', async () => {
    const dir = await app({
      'package.json': pkg,
      'astro.config.mjs': "import vercel from '@astrojs/vercel';\nexport default { output: 'server', adapter: vercel() };\n",
    });
    const result = await plan(dir);
    expect(result.kind).toBe('static');
    expect(result.warnings).toEqual([
      'This Astro app has a server adapter other than @astrojs/node: only its static pages are served. Use @astrojs/node (mode "standalone") to run its server.',
    ]);
  });
});

describe('SvelteKit', () => {
  const pkg = {
    scripts: { dev: 'vite dev', build: 'vite build', preview: 'vite preview' },
    devDependencies: { '@sveltejs/kit': '^2.21.0', '@sveltejs/adapter-node': '^5.2.0', svelte: '^5.33.0', vite: '^6.3.0' },
  };

  it('runs node build with adapter-node (not the vite preset its vite dependency also matches)', async () => {
    const dir = await app({
      'package.json': pkg,
      'svelte.config.js': "import adapter from '@sveltejs/adapter-node';\nexport default { kit: { adapter: adapter() } };\n",
    });
    expect(await plan(dir)).toMatchObject({
      preset: 'sveltekit-1',
      presetName: 'SvelteKit',
      buildCommand: 'npm run build',
      kind: 'server',
      outputDirectory: null,
      processes: web('node build'),
      warnings: [],
    });
  });

  it('serves the pages folder of adapter-static, with its index.html fallback', async () => {
    const dir = await app({
      'package.json': pkg,
      'svelte.config.js':
        "import adapter from '@sveltejs/adapter-static';\nexport default { kit: { adapter: adapter({ pages: 'site', fallback: 'index.html' }) } };\n",
    });
    expect(await plan(dir)).toMatchObject({ kind: 'static', outputDirectory: 'site', processes: [], spaFallback: true });
  });

  it('warns that adapter-auto builds no Node server', async () => {
    const dir = await app({
      'package.json': pkg,
      'svelte.config.js': "import adapter from '@sveltejs/adapter-auto';\nexport default { kit: { adapter: adapter() } };\n",
    });
    const result = await plan(dir);
    expect(result.processes).toEqual(web('node build'));
    expect(result.warnings).toEqual([
      'SvelteKit builds a Node server only with @sveltejs/adapter-node: add it in svelte.config.js, or set a start command.',
    ]);
  });
});

describe('React Router and Remix', () => {
  const pkg = {
    scripts: { build: 'react-router build', dev: 'react-router dev', start: 'react-router-serve ./build/server/index.js' },
    dependencies: { '@react-router/node': '^7.6.0', '@react-router/serve': '^7.6.0', react: '^19.1.0', 'react-router': '^7.6.0' },
    devDependencies: { '@react-router/dev': '^7.6.0', vite: '^6.3.0' },
  };
  const viteConfig =
    "import { reactRouter } from '@react-router/dev/vite';\nimport { defineConfig } from 'vite';\nexport default defineConfig({ plugins: [reactRouter()] });\n";

  it('runs the start script of a React Router app (not the vite preset)', async () => {
    const dir = await app({
      'package.json': pkg,
      'vite.config.ts': viteConfig,
      'react-router.config.ts': 'export default { ssr: true };\n',
    });
    expect(await plan(dir)).toMatchObject({
      preset: 'react-router',
      presetName: 'React Router',
      buildCommand: 'npm run build',
      kind: 'server',
      outputDirectory: null,
      processes: web('npm run start'),
    });
  });

  it('runs react-router-serve when there is no start script', async () => {
    const { start: _start, ...scripts } = pkg.scripts;
    const dir = await app({ 'package.json': { ...pkg, scripts }, 'vite.config.ts': viteConfig });
    expect((await plan(dir)).processes).toEqual(web('npx react-router-serve ./build/server/index.js'));
  });

  it('serves build/client of a single-page app (ssr: false)', async () => {
    const dir = await app({
      'package.json': pkg,
      'vite.config.ts': viteConfig,
      'react-router.config.ts': 'export default { ssr: false };\n',
    });
    expect(await plan(dir)).toMatchObject({ kind: 'static', outputDirectory: 'build/client', processes: [], spaFallback: true });
  });

  it('runs remix-serve for a Remix app', async () => {
    const dir = await app({
      'package.json': {
        scripts: { build: 'remix vite:build' },
        dependencies: { '@remix-run/serve': '^2.16.0' },
        devDependencies: { '@remix-run/dev': '^2.16.0' },
      },
      'vite.config.ts': "import { vitePlugin as remix } from '@remix-run/dev';\nexport default { plugins: [remix()] };\n",
    });
    expect(await plan(dir)).toMatchObject({ preset: 'remix', processes: web('npx remix-serve ./build/server/index.js') });
  });
});

describe('Node servers', () => {
  it('Express: its start script', async () => {
    const dir = await app({
      'package.json': { scripts: { start: 'node ./bin/www' }, dependencies: { express: '^5.1.0' } },
      'app.js': "const express = require('express');\nmodule.exports = express();\n",
      'bin/www': "require('../app').listen(process.env.PORT);\n",
    });
    expect(await plan(dir)).toMatchObject({
      preset: 'express',
      presetName: 'Express',
      buildCommand: null,
      kind: 'server',
      outputDirectory: null,
      processes: web('npm run start'),
      cacheDirectories: [],
    });
  });

  it('Express without a start script: node server.js', async () => {
    const dir = await app({
      'package.json': { dependencies: { express: '^5.1.0' } },
      'server.js': "import express from 'express';\nexpress().listen(process.env.PORT);\n",
    });
    expect(await plan(dir)).toMatchObject({ preset: 'express', processes: web('node server.js') });
  });

  it('Fastify: its start script', async () => {
    const dir = await app({
      'package.json': {
        scripts: { start: 'fastify start -l info app.js' },
        dependencies: { fastify: '^5.3.0', 'fastify-cli': '^7.4.0' },
      },
      'app.js': "'use strict'\nconst Fastify = require('fastify')\nmodule.exports = async function (fastify) {}\n",
    });
    expect(await plan(dir)).toMatchObject({ preset: 'fastify', presetName: 'Fastify', processes: web('npm run start') });
  });

  it('NestJS: its start:prod script, built by nest build', async () => {
    const dir = await app({
      'package.json': {
        scripts: { build: 'nest build', start: 'nest start', 'start:prod': 'node dist/main' },
        dependencies: { '@nestjs/common': '^11.0.0', '@nestjs/core': '^11.0.0' },
        devDependencies: { '@nestjs/cli': '^11.0.0' },
      },
      'src/main.ts': "import { NestFactory } from '@nestjs/core';\n",
    });
    expect(await plan(dir)).toMatchObject({
      preset: 'nestjs',
      presetName: 'NestJS',
      buildCommand: 'npm run build',
      processes: web('npm run start:prod'),
    });
  });

  it('NestJS without start:prod: node dist/main', async () => {
    const dir = await app({
      'package.json': { scripts: { build: 'nest build', start: 'nest start' }, dependencies: { '@nestjs/core': '^11.0.0' } },
      'src/main.ts': "import { NestFactory } from '@nestjs/core';\n",
    });
    expect((await plan(dir)).processes).toEqual(web('node dist/main'));
  });

  it('Hono with bun: bun commands from bun.lock', async () => {
    const dir = await app({
      'package.json': {
        scripts: { build: 'tsc', start: 'node dist/index.js' },
        dependencies: { hono: '^4.7.0', '@hono/node-server': '^1.14.0' },
      },
      'bun.lock': '{ "lockfileVersion": 1 }\n',
      'src/index.ts': "import { Hono } from 'hono'\nconst app = new Hono()\nexport default app\n",
    });
    expect(await plan(dir)).toMatchObject({
      preset: 'hono',
      presetName: 'Hono',
      packageManager: 'bun',
      installCommand: 'bun install --frozen-lockfile',
      buildCommand: 'bun run build',
      processes: web('bun run start'),
    });
  });

  it('a Node app of no known framework: node <main> when main exists', async () => {
    const dir = await app({ 'package.json': { main: 'lib/serve.js', dependencies: { ws: '^8.0.0' } }, 'lib/serve.js': '' });
    expect(await plan(dir)).toMatchObject({
      preset: 'node',
      presetName: 'Node.js',
      kind: 'server',
      processes: web('node lib/serve.js'),
    });
  });
});

describe('detection of a crafted package.json', () => {
  it('takes no time over 50,000 nested "dependencies" objects (which the raw-text patterns take minutes over)', async () => {
    const depth = 50_000;
    const nested = `${'{"dependencies": '.repeat(depth)}1${'}'.repeat(depth)}`;
    const dir = await app({ 'package.json': `{"devDependencies": {"vite": "^6.3.0"}, "x": ${nested}}` });
    const started = Date.now();
    expect((await plan(dir)).preset).toBe('vite');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('package managers', () => {
  const pkg = { scripts: { build: 'vite build' }, devDependencies: { vite: '^6.3.0' } };

  it.each([
    [{ 'package-lock.json': '{}' }, 'npm', 'npm ci', 'npm run build'],
    [{ 'npm-shrinkwrap.json': '{}' }, 'npm', 'npm ci', 'npm run build'],
    [{ 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" }, 'pnpm', 'pnpm install --frozen-lockfile', 'pnpm run build'],
    [
      { 'yarn.lock': '# THIS IS AN AUTOGENERATED FILE.\n# yarn lockfile v1\n' },
      'yarn',
      'yarn install --frozen-lockfile',
      'yarn run build',
    ],
    [
      { 'yarn.lock': '# This file is generated by running "yarn install"\n\n__metadata:\n  version: 8\n' },
      'yarn',
      'yarn install --immutable',
      'yarn run build',
    ],
    [{ 'bun.lockb': 'binary' }, 'bun', 'bun install --frozen-lockfile', 'bun run build'],
    [{ 'bun.lock': '{}' }, 'bun', 'bun install --frozen-lockfile', 'bun run build'],
    [{}, 'npm', 'npm install', 'npm run build'],
  ])('%j: %s', async (lockfiles, packageManager, install, build) => {
    const result = await plan(await app({ 'package.json': pkg, ...lockfiles }));
    expect([result.packageManager, result.installCommand, result.buildCommand]).toEqual([packageManager, install, build]);
  });

  it('follows the packageManager field of package.json (yarn 4 is berry: --immutable)', async () => {
    const result = await plan(await app({ 'package.json': { ...pkg, packageManager: 'yarn@4.9.1' }, 'yarn.lock': 'x' }));
    expect([result.packageManager, result.installCommand]).toEqual(['yarn', 'yarn install --immutable']);
  });

  it('installs without frozen lockfile when the packageManager field has no lockfile of its own', async () => {
    const result = await plan(
      await app({ 'package.json': { ...pkg, packageManager: 'pnpm@10.11.0' }, 'package-lock.json': '{}' }),
    );
    expect([result.packageManager, result.installCommand]).toEqual(['pnpm', 'pnpm install']);
    expect(result.warnings).toEqual([
      'package.json names pnpm but the lockfile is package-lock.json: installing without a lockfile',
    ]);
  });

  it('takes the first of several lockfiles and says so', async () => {
    const result = await plan(await app({ 'package.json': pkg, 'package-lock.json': '{}', 'yarn.lock': 'x' }));
    expect(result.installCommand).toBe('npm ci');
    expect(result.warnings).toEqual(['Several lockfiles: using package-lock.json (npm), ignoring yarn.lock']);
  });
});

describe('Procfile', () => {
  it('gives the processes (web gets traffic), the install and build still detected', async () => {
    const dir = await app({
      'package.json': { scripts: { build: 'tsc', start: 'node dist/index.js' }, dependencies: { express: '^5.1.0' } },
      'package-lock.json': '{}',
      'index.js': "const express = require('express')\n",
      Procfile:
        '# processes\nweb: node dist/web.js --port $PORT\n\nworker:   node dist/worker.js\nclock: node dist/clock.js # every minute\n',
    });
    const result = await plan(dir);
    expect(result).toMatchObject({
      preset: 'express',
      installCommand: 'npm ci',
      buildCommand: 'npm run build',
      kind: 'server',
      processes: [
        { type: 'web', command: 'node dist/web.js --port $PORT' },
        { type: 'worker', command: 'node dist/worker.js' },
        { type: 'clock', command: 'node dist/clock.js # every minute' },
      ],
    });
    expect(result.sources).toMatchObject({ processes: 'Procfile', installCommand: 'detected', buildCommand: 'detected' });
  });

  it('runs an app of no framework from its Procfile alone', async () => {
    const result = await plan(await app({ Procfile: 'web: ./serve.sh\n', 'serve.sh': '#!/bin/sh\n' }));
    expect(result).toMatchObject({
      preset: 'other',
      packageManager: null,
      installCommand: null,
      buildCommand: null,
      kind: 'server',
      processes: web('./serve.sh'),
    });
  });

  it('reports its malformed lines', async () => {
    expect(await errors(await app({ Procfile: 'web: node a.js\nnot a process line\nweb: node b.js\nbad type!: x\n' }))).toEqual([
      { source: 'Procfile', path: 'Procfile:2', message: 'Expected `type: command`' },
      { source: 'Procfile', path: 'Procfile:3', message: 'The process type "web" is declared twice' },
      { source: 'Procfile', path: 'Procfile:4', message: 'Expected `type: command`' },
    ]);
  });
});

describe('launchbay.json', () => {
  const expressApp = {
    'package.json': { scripts: { build: 'tsc', start: 'node dist/index.js' }, dependencies: { express: '^5.1.0' } },
    'package-lock.json': '{}',
    'src/index.ts': "import express from 'express'\n",
  };

  it('sets every field it names, over the settings, the Procfile and detection', async () => {
    const dir = await app({
      ...expressApp,
      Procfile: 'web: node procfile.js\nrelease: node migrate.js\n',
      'launchbay.json': {
        $schema: 'https://launchbay.example/api/schemas/launchbay.json',
        installCommand: 'npm ci --omit=optional',
        buildCommand: null,
        startCommand: 'node dist/server.js',
        processes: { worker: 'node dist/worker.js' },
        port: 8080,
        healthCheckPath: '/healthz',
        requiredEnv: ['DATABASE_URL', 'SESSION_SECRET'],
        crons: [{ path: '/api/cleanup', schedule: '0 3 * * *' }],
      },
    });
    const result = await plan(dir, {
      buildCommand: 'npm run compile',
      startCommand: 'node other.js',
      port: 3000,
      installCommand: '  ',
    });
    expect(result).toMatchObject({
      preset: 'express',
      installCommand: 'npm ci --omit=optional',
      buildCommand: null,
      kind: 'server',
      outputDirectory: null,
      processes: [
        { type: 'web', command: 'node dist/server.js' },
        { type: 'worker', command: 'node dist/worker.js' },
      ],
      port: 8080,
      healthCheckPath: '/healthz',
      requiredEnv: ['DATABASE_URL', 'SESSION_SECRET'],
      crons: [{ path: '/api/cleanup', schedule: '0 3 * * *' }],
      warnings: [
        'launchbay.json sets buildCommand: the project setting is not used',
        'launchbay.json sets startCommand: the project setting is not used',
        'launchbay.json sets port: the project setting is not used',
      ],
    });
    expect(result.sources).toMatchObject({
      installCommand: 'launchbay.json',
      buildCommand: 'launchbay.json',
      processes: 'launchbay.json',
      port: 'launchbay.json',
      healthCheckPath: 'launchbay.json',
      requiredEnv: 'launchbay.json',
      crons: 'launchbay.json',
      outputDirectory: 'detected',
    });
  });

  it('makes a static site of its outputDirectory when it sets no start', async () => {
    const dir = await app({ ...expressApp, 'launchbay.json': { outputDirectory: './site/' } });
    expect(await plan(dir)).toMatchObject({
      kind: 'static',
      outputDirectory: 'site',
      processes: [],
      sources: { outputDirectory: 'launchbay.json', kind: 'launchbay.json' },
    });
  });

  it('answers its errors with their JSON path', async () => {
    const dir = await app({
      ...expressApp,
      'launchbay.json': {
        buildCommand: 42,
        processes: { web: 3, 'bad type!': 'x' },
        port: 70000,
        healthCheckPath: 'health',
        requiredEnv: ['OK', 'NOT-OK'],
        crons: [{ path: '/a', schedule: 'every day' }, { schedule: '* * * * *' }],
        buildCmd: 'npm run build',
      },
    });
    expect(await errors(dir)).toEqual([
      { source: 'launchbay.json', path: 'buildCommand', message: 'Expected string' },
      { source: 'launchbay.json', path: 'port', message: 'Must be between 1 and 65535' },
      { source: 'launchbay.json', path: 'healthCheckPath', message: 'Must be a path starting with /' },
      { source: 'launchbay.json', path: 'processes.web', message: 'Expected string' },
      { source: 'launchbay.json', path: 'processes.bad type!', message: 'Must be letters, digits, - or _' },
      {
        source: 'launchbay.json',
        path: 'requiredEnv.1',
        message: 'Must be an environment variable name (letters, digits and _)',
      },
      { source: 'launchbay.json', path: 'crons.0.schedule', message: 'Must be a cron expression, e.g. `0 3 * * *`' },
      { source: 'launchbay.json', path: 'crons.1.path', message: 'Required' },
      { source: 'launchbay.json', path: 'buildCmd', message: 'Unknown field' },
    ]);
  });

  it('answers invalid JSON with its line and column', async () => {
    const dir = await app({ ...expressApp, 'launchbay.json': '{\n  "buildCommand": "npm run build",\n  "port": 3000,\n}\n' });
    expect(await errors(dir)).toEqual([
      {
        source: 'launchbay.json',
        path: '(root)',
        message: 'Invalid JSON: Expected double-quoted property name at line 4, column 1',
      },
    ]);
  });

  it('does not read a launchbay.json that links out of the root directory', async () => {
    const outside = await app({ 'secret.json': '{"startCommand": "cat /etc/shadow"}' });
    const dir = await app(expressApp);
    await symlink(path.join(outside, 'secret.json'), path.join(dir, 'launchbay.json'));
    expect(await errors(dir)).toEqual([
      {
        source: 'launchbay.json',
        path: 'launchbay.json',
        message: 'Must be a regular file of at most 1 MiB inside the root directory',
      },
    ]);
  });
});

describe('settings (overrides)', () => {
  const viteApp = {
    'package.json': { scripts: { build: 'vite build' }, devDependencies: { vite: '^6.3.0' } },
    'pnpm-lock.yaml': 'x',
  };

  it('override each field they set, blank and null ones left alone', async () => {
    const result = await plan(await app(viteApp), {
      installCommand: 'pnpm install --prod=false',
      buildCommand: 'pnpm run build:prod',
      outputDirectory: 'build',
      startCommand: null,
      port: null,
      healthCheckPath: '',
    });
    expect(result).toMatchObject({
      installCommand: 'pnpm install --prod=false',
      buildCommand: 'pnpm run build:prod',
      kind: 'static',
      outputDirectory: 'build',
      spaFallback: true,
      port: null,
      healthCheckPath: '/',
    });
    expect(result.sources).toMatchObject({
      installCommand: 'settings',
      buildCommand: 'settings',
      outputDirectory: 'settings',
      port: 'detected',
      healthCheckPath: 'detected',
    });
  });

  it('a start command makes a server of a detected static site', async () => {
    const result = await plan(await app(viteApp), {
      startCommand: 'pnpm exec vite preview --port $PORT',
      port: 4173,
      healthCheckPath: '/up',
    });
    expect(result).toMatchObject({
      kind: 'server',
      outputDirectory: null,
      processes: web('pnpm exec vite preview --port $PORT'),
      spaFallback: false,
      port: 4173,
      healthCheckPath: '/up',
      sources: { processes: 'settings', kind: 'settings', port: 'settings', healthCheckPath: 'settings' },
    });
  });

  it('a start command wins over the Procfile web, not over launchbay.json', async () => {
    const withProcfile = await app({ ...viteApp, Procfile: 'web: node a.js\nworker: node w.js\n' });
    expect((await plan(withProcfile, { startCommand: 'node b.js' })).processes).toEqual([
      { type: 'web', command: 'node b.js' },
      { type: 'worker', command: 'node w.js' },
    ]);
    const withJson = await app({ ...viteApp, 'launchbay.json': { processes: { web: 'node c.js' } } });
    const result = await plan(withJson, { startCommand: 'node b.js' });
    expect(result.processes).toEqual(web('node c.js'));
    expect(result.sources.processes).toBe('launchbay.json');
  });

  it('an output folder makes a static site of a detected server', async () => {
    const dir = await app({
      'package.json': { scripts: { start: 'node server.js' }, dependencies: { express: '^5.1.0' } },
      'server.js': "require('express')",
    });
    expect(await plan(dir, { outputDirectory: 'public' })).toMatchObject({
      preset: 'express',
      kind: 'static',
      outputDirectory: 'public',
      processes: [],
    });
  });

  it('a preset replaces detection', async () => {
    const result = await plan(await app({ ...viteApp, 'index.html': '<p>' }), { preset: 'static' });
    expect(result).toMatchObject({
      preset: 'static',
      presetName: 'Static HTML',
      installCommand: 'pnpm install --frozen-lockfile',
      buildCommand: 'pnpm run build',
      outputDirectory: '.',
      sources: { preset: 'settings' },
    });
  });

  it('answer an unknown preset and an output folder out of the root directory with errors', async () => {
    expect(await errors(await app(viteApp), { preset: 'rails', outputDirectory: '../../etc' })).toEqual([
      { source: 'settings', path: 'preset', message: 'Unknown preset "rails"' },
      { source: 'settings', path: 'outputDirectory', message: 'Must be a folder inside the root directory' },
    ]);
  });
});

describe('nothing to run', () => {
  it('says so for an empty folder', async () => {
    expect(await errors(await app({ 'README.md': '# hi' }))).toEqual([
      {
        source: 'detected',
        path: 'startCommand',
        message:
          'Found nothing to deploy: add a package.json, an index.html, a Procfile or a launchbay.json, or set a start command in the project settings',
      },
    ]);
  });

  it('says so for a package.json with no way to start', async () => {
    expect(await errors(await app({ 'package.json': { main: 'index.js', scripts: { test: 'exit 1' } } }))).toEqual([
      {
        source: 'detected',
        path: 'startCommand',
        message:
          'Found no way to start this app: set startCommand (or outputDirectory for a static site) in launchbay.json or in the project settings',
      },
    ]);
  });
});
