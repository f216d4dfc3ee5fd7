import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, signIn, test, toast } from '../fixtures';

/*
 * The load balancer in the console against the real platform and edge: two upstream servers in
 * this process, a route to both added in the UI (with the contract's message for a bad address
 * first), requests through the edge taking turns, then one upstream stopped: the edge leaves it
 * out and the console shows it Unhealthy with the error. The route is then edited in the UI to a third
 * upstream in place of the stopped one, and the requests take turns again. Finally it is deleted in
 * the UI and the domain gets the edge's "no app" answer.
 */

const DOMAIN = 'balanced.lb.test';

interface Upstream {
  readonly port: number;
  readonly address: string;
  close(): Promise<void>;
}

/** A tiny upstream: 200 'ok' on /health, its own name on every other path. */
async function startUpstream(name: string): Promise<Upstream> {
  const server = http.createServer((request, response) => {
    if (request.url === '/health') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('ok');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed = false;
  return {
    port,
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A GET through the edge on 127.0.0.1:{port} with the route's Host header, as a visitor resolving
 * the domain to this server would send it (node:http: fetch does not let the caller set Host).
 */
function throughEdge(port: number, host: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers: { host }, agent: false, timeout: 5000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${host}${path} through the edge timed out`)));
    request.on('error', reject);
  });
}

async function bodies(port: number, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) seen.push((await throughEdge(port, DOMAIN)).body);
  return seen;
}

test('a route to two upstreams is added in the console, takes turns, leaves out a stopped upstream, is edited, and is deleted', async ({
  page,
  admin,
}) => {
  test.setTimeout(120_000);
  const a = await startUpstream('upstream A');
  const b = await startUpstream('upstream B');
  const c = await startUpstream('upstream C');
  try {
    await signIn(page, admin, '/load-balancer');
    await expect(page).toHaveTitle('Load balancer - Launchbay');
    await expect(page.getByRole('heading', { level: 1, name: 'Load balancer' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'No load-balancer routes' })).toBeVisible();

    // The form: the contract's message for an address without a port, then a route to both upstreams.
    await page.getByRole('main').getByRole('button', { name: 'Add route' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add route' });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Domain', { exact: true }).fill(DOMAIN);
    await dialog.getByLabel('Upstream 1', { exact: true }).fill('127.0.0.1');
    await dialog.getByRole('button', { name: 'Create route' }).click();
    await expect(dialog.getByText('Enter an address such as 10.0.0.5:3000', { exact: true })).toBeVisible();
    await expect(dialog.getByLabel('Upstream 1', { exact: true })).toHaveAttribute('aria-invalid', 'true');

    await dialog.getByLabel('Upstream 1', { exact: true }).fill(a.address);
    await dialog.getByRole('button', { name: 'Add upstream' }).click();
    await dialog.getByLabel('Upstream 2', { exact: true }).fill(b.address);
    await expect(dialog.getByRole('switch', { name: 'Enabled' })).toBeChecked();
    await expect(dialog.getByLabel('Path', { exact: true })).toHaveValue('/');
    await dialog.getByLabel('Path', { exact: true }).fill('/health');
    await dialog.getByLabel('Interval (seconds)', { exact: true }).fill('1');
    await dialog.getByLabel('Timeout (seconds)', { exact: true }).fill('1');
    await dialog.getByRole('button', { name: 'Create route' }).click();
    await expect(toast(page, 'Route created')).toContainText(`${DOMAIN} → ${a.address}, ${b.address}`);
    await expect(dialog).toBeHidden();

    // The list: the domain links to its address on the edge (a new tab), the target, each upstream's health, the check.
    const row = page.getByTestId(`lb-route-${DOMAIN}`);
    const link = row.getByRole('link', { name: DOMAIN });
    await expect(link).toHaveAttribute('target', '_blank');
    const href = await link.getAttribute('href');
    const edgeUrl = new URL(href ?? '');
    expect(edgeUrl.hostname).toBe(DOMAIN);
    const edgePort = Number(edgeUrl.port || 80);
    await expect(row).toContainText('Upstream addresses');
    await expect(row).toContainText('2 upstreams, in turn');
    await expect(row.getByText('GET /health every 1 s', { exact: true })).toBeVisible();
    const health = (upstream: Upstream) => row.locator(`[data-testid="upstream-health"][data-upstream="${upstream.address}"]`);
    // Checked every second, shown by the list's refresh (every 5 s).
    await expect(health(a)).toContainText('Healthy', { timeout: 20_000 });
    await expect(health(b)).toContainText('Healthy', { timeout: 20_000 });

    // Through the edge: applied without a restart, the requests alternate.
    await expect.poll(async () => (await throughEdge(edgePort, DOMAIN)).status, { timeout: 15_000 }).toBe(200);
    const turns = await bodies(edgePort, 6);
    expect(new Set(turns)).toEqual(new Set(['upstream A', 'upstream B']));
    for (let i = 1; i < turns.length; i++) expect(turns[i], `request ${i + 1} of ${turns.join(', ')}`).not.toBe(turns[i - 1]);

    // B stops: after its failed checks every request goes to A, and the console says why.
    await b.close();
    await expect
      .poll(async () => (await bodies(edgePort, 6)).every((body) => body === 'upstream A'), { timeout: 20_000, intervals: [500] })
      .toBe(true);
    await expect(health(b)).toContainText('Unhealthy', { timeout: 20_000 });
    await expect(health(b)).toContainText('connection refused');
    await expect(health(a)).toContainText('Healthy');
    expect(await bodies(edgePort, 4)).toEqual(['upstream A', 'upstream A', 'upstream A', 'upstream A']);

    // Edited: the stopped upstream is replaced by a third one, and the requests take turns between A and C.
    await row.getByRole('button', { name: `Actions for ${DOMAIN}` }).click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit route' });
    await expect(edit.getByLabel('Domain', { exact: true })).toHaveValue(DOMAIN);
    await expect(edit.getByLabel('Upstream 2', { exact: true })).toHaveValue(b.address);
    await edit.getByLabel('Upstream 2', { exact: true }).fill(c.address);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(toast(page, 'Route updated')).toContainText(`${DOMAIN} → ${a.address}, ${c.address}`);
    await expect(edit).toBeHidden();
    await expect(health(c)).toContainText('Healthy', { timeout: 20_000 });
    await expect(health(b)).toHaveCount(0);
    await expect
      .poll(async () => new Set(await bodies(edgePort, 6)), { timeout: 15_000, intervals: [500] })
      .toEqual(new Set(['upstream A', 'upstream C']));

    // Deleted after the confirmation: the list is empty again and the edge no longer routes the domain.
    await row.getByRole('button', { name: `Actions for ${DOMAIN}` }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: `Delete route for ${DOMAIN}?` });
    await expect(confirm).toContainText(`Requests to ${DOMAIN} get the edge’s “no app here” page afterwards.`);
    await confirm.getByRole('button', { name: 'Delete route' }).click();
    await expect(toast(page, 'Route deleted')).toContainText(DOMAIN);
    await expect(confirm).toBeHidden();
    await expect(row).toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'No load-balancer routes' })).toBeVisible();
    await expect.poll(async () => (await throughEdge(edgePort, DOMAIN)).status, { timeout: 15_000 }).toBe(404);
  } finally {
    await a.close();
    await b.close();
    await c.close();
  }
});
