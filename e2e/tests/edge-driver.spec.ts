import http from 'node:http';
import { expect, signIn, test, toast } from '../fixtures';

/*
 * Settings > Edge proxy in Chromium against the real platform: the embedded edge serves, nginx
 * (Debian's package) is offered with its version, choosing it restarts the edge with nginx on the
 * same port (a request through the edge is now answered by nginx), and choosing Embedded again
 * gives the port back to the embedded edge.
 */

/** The Server header the edge's port answers with (nginx names itself; the embedded edge sends none). */
function serverHeader(port: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: '/', headers: { host: 'nobody.driver.test' }, agent: false, timeout: 5000 },
      (response) => {
        response.resume();
        const server = response.headers.server;
        resolve(typeof server === 'string' ? server : undefined);
      },
    );
    request.on('timeout', () => request.destroy(new Error('the edge did not answer')));
    request.on('error', reject);
  });
}

test('an admin switches the edge to nginx and back in Settings; the same port answers through nginx, then the embedded edge', async ({
  page,
  admin,
}) => {
  test.setTimeout(90_000);
  await signIn(page, admin, '/settings');
  const section = page.getByRole('region', { name: 'Edge proxy' });
  await expect(section).toBeVisible();
  const embedded = section.getByRole('radio', { name: /^Embedded/ });
  const nginx = section.getByRole('radio', { name: /^nginx/ });
  await expect(section.getByRole('radio', { name: /^Embedded Default Serving/ })).toBeChecked();
  await expect(section.getByText(/^Installed: nginx\/\d/)).toBeVisible();
  const status = section.getByText(/^Serving on port \d+/);
  await expect(status).toBeVisible();
  const port = Number((await status.textContent())?.match(/port (\d+)/)?.[1]);
  expect(port).toBeGreaterThan(0);
  expect(await serverHeader(port)).toBeUndefined();

  await nginx.check();
  await section.getByRole('button', { name: 'Save Edge proxy' }).click();
  await expect(toast(page, 'Settings saved')).toBeVisible({ timeout: 20_000 });
  // The badge is part of the option's name: "nginx Serving ...".
  await expect(section.getByRole('radio', { name: /^nginx Serving/ })).toBeChecked();
  await expect(section.getByText(`Serving on port ${port}`, { exact: false })).toBeVisible();
  expect(await serverHeader(port)).toBe('nginx');

  await embedded.check();
  await section.getByRole('button', { name: 'Save Edge proxy' }).click();
  await expect(section.getByRole('radio', { name: /^Embedded Default Serving/ })).toBeChecked({ timeout: 20_000 });
  await expect(section.getByText(`Serving on port ${port}`, { exact: false })).toBeVisible();
  expect(await serverHeader(port)).toBeUndefined();
});
