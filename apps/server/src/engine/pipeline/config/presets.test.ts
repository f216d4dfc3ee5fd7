import { describe, expect, it } from 'vitest';
import { isPreset, listPresets } from './presets';

describe('presets', () => {
  it('lists each preset once, with its default commands from @vercel/frameworks and ours', async () => {
    const presets = await listPresets();
    const slugs = presets.map((p) => p.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    const bySlug = new Map(presets.map((p) => [p.slug, p]));
    expect(bySlug.get('nextjs')).toEqual({
      slug: 'nextjs',
      name: 'Next.js',
      kind: 'server',
      installCommand: null,
      buildCommand: 'next build',
      startCommand: 'next start',
      outputDirectory: null,
      website: 'https://nextjs.org',
    });
    expect(bySlug.get('vite')).toMatchObject({
      kind: 'static',
      buildCommand: 'vite build',
      startCommand: null,
      outputDirectory: 'dist',
    });
    expect(bySlug.get('astro')).toMatchObject({ kind: 'static', buildCommand: 'astro build', outputDirectory: 'dist' });
    expect(bySlug.get('nuxtjs')).toMatchObject({
      kind: 'server',
      startCommand: 'node .output/server/index.mjs',
      outputDirectory: null,
    });
    expect(bySlug.get('sveltekit-1')).toMatchObject({ name: 'SvelteKit', kind: 'server', startCommand: 'node build' });
    expect(bySlug.get('react-router')).toMatchObject({ startCommand: 'react-router-serve ./build/server/index.js' });
    expect(bySlug.get('gatsby')).toMatchObject({ kind: 'static', buildCommand: 'gatsby build', outputDirectory: 'public' });
    expect(bySlug.get('static')).toMatchObject({ name: 'Static HTML', kind: 'static', outputDirectory: '.' });
    for (const slug of ['express', 'fastify', 'hono', 'nestjs', 'node', 'remix']) expect(bySlug.get(slug)?.kind).toBe('server');
  });

  it('leaves out what needs another toolchain or runs only on Vercel', async () => {
    const presets = await listPresets();
    for (const slug of ['hugo', 'jekyll', 'zola', 'django', 'fastapi', 'go', 'rust', 'container', 'redwoodjs', 'services']) {
      expect(await isPreset(slug), slug).toBe(false);
    }
    expect(presets.every((p) => (p.kind === 'server' ? p.startCommand !== null : p.outputDirectory !== null))).toBe(true);
  });
});
