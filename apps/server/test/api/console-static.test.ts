import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../helpers/platform';

// The console must be built first (npm test builds before the API tests run).
const consoleIndex = path.resolve(import.meta.dirname, '../../../console/dist/index.html');

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.close());

describe('the built console', () => {
  it('is served at / and at every client-side route, never cached', async () => {
    expect(fs.existsSync(consoleIndex), 'run npm run build first').toBe(true);
    for (const route of ['/', '/users', '/projects/some-app/settings/general', '/settings/audit-logs']) {
      const response = await fetch(`${platform.url}${route}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/text\/html/);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<div id="root">');
    }
  });

  it('serves hashed assets as immutable, and a missing asset is a 404, never index.html', async () => {
    const html = await (await fetch(platform.url)).text();
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeTruthy();
    const asset = await fetch(`${platform.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await asset.text()).length).toBeGreaterThan(1000);
    const missing = await fetch(`${platform.url}/assets/index-deadbeef.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/application\/json/);
    expect(await missing.json()).toMatchObject({ detail: 'Not found' });
  });
});
