import http from 'node:http';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import type { Locator, Page } from '@playwright/test';
import { expect, signIn, test, unique } from '../fixtures';
import { waitForDeployment } from '../support/deployments';

/*
 * Proxy logs end to end: requests sent through the real edge (to a deployed static project, and to
 * a host nothing serves) become rows the console lists within seconds; the list filters by status
 * class and host (kept in the URL), a row opens its request with every field, the client IP opens
 * /ip/{ip} (a loopback address: no place, and its requests). Then the platform is stopped (the
 * edge keeps serving, and logs what it serves meanwhile) and started again on the same data: the
 * rows are still there, and so is the request made while it was down.
 */

type Project = { id: number; slug: string; url: string; last_deployment: { id: number } | null };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A request through the edge as a visitor makes it: to 127.0.0.1 on the edge's port, the Host header names the app. */
function viaEdge(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers: { ...headers, host }, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

/** Every row of a proxy-log table on the page. */
const logRows = (scope: Page | Locator) => scope.getByTestId(/^proxy-log-\d+$/);

/** The row of one request: its time link is named after method, host, path with query and status. */
function logRow(page: Page, scope: Page | Locator, host: string, pathWithQuery: string, status: number): Locator {
  const name = new RegExp(`^Open request GET ${escapeRegExp(`${host}${pathWithQuery}`)}, ${status}, `);
  return logRows(scope).filter({ has: page.getByRole('link', { name }) });
}

const rowId = async (row: Locator) => Number((await row.getAttribute('data-testid'))?.replace('proxy-log-', ''));

/** The value of a field of the detail page's card (a dt/dd pair). */
const field = (card: Locator, label: string) =>
  card.locator(`xpath=.//dt[normalize-space()="${label}"]/following-sibling::dd[1]`);

let git: GitServer;

test.beforeAll(async () => {
  git = await startGitServer();
});

test.afterAll(async () => {
  await git?.close();
});

test('the edge logs every request: listed and filtered, opened with every field, its IP looked up, and kept across a restart', async ({
  page,
  platform,
}) => {
  test.setTimeout(240_000);
  const run = unique('proxy-logs');
  const userAgent = `LaunchbayE2E-ProxyLogs/1.0 (${run})`;
  const referrer = `https://referrer.example/${run}`;
  const name = `Logs ${run}`;
  const repo = await git.createRepo(
    `e2e/${run}`,
    { 'index.html': `<!doctype html><html><head><title>Logged</title></head><body><h1>Logged site</h1></body></html>` },
    { message: 'A static site for the proxy logs' },
  );
  const created = await platform.adminApi.post('/api/projects', { data: { name, git_url: repo.url, branch: 'main' } });
  expect(created.status(), await created.text()).toBe(201);
  const project = (await created.json()) as Project;

  try {
    const deploymentId = project.last_deployment?.id ?? 0;
    const deployment = await waitForDeployment(platform.adminApi, project.id, deploymentId);
    expect(deployment.status, deployment.error ?? '').toBe('ready');
    const address = new URL(project.url);
    const edgePort = Number(address.port);
    const siteHost = address.hostname;
    expect(siteHost).toBe(`${project.slug}.localhost`);
    const unknownHost = `nobody-here-${run}.localhost`;
    const headers = { 'user-agent': userAgent };

    // --- Requests through the edge: the site (a page, a missing file) and a host nothing serves.
    await expect
      .poll(async () => (await viaEdge(edgePort, siteHost, '/?utm_source=e2e&ref=proxy-logs', headers)).status, {
        timeout: 20_000,
      })
      .toBe(200);
    const missing = await viaEdge(edgePort, siteHost, '/e2e-missing.css?v=1', { ...headers, referer: referrer });
    expect(missing.status).toBe(404);
    const nobodyRoot = await viaEdge(edgePort, unknownHost, '/', headers);
    expect(nobodyRoot.status).toBe(404);
    expect(nobodyRoot.body).toContain(`No app is deployed at ${unknownHost}`);
    expect((await viaEdge(edgePort, unknownHost, '/e2e-probe.php?id=7', headers)).status).toBe(404);

    // --- The list: the rows arrive (the edge writes them about every second); Live brings them in.
    await signIn(page, platform.admin, '/proxy-logs');
    await expect(page).toHaveTitle('Proxy Logs - Launchbay');
    await expect(page.getByRole('heading', { level: 1, name: 'Proxy Logs', exact: true })).toBeVisible();
    await expect(
      page.getByText('Every request the edge served: what was asked for, how it was answered and how long it took.'),
    ).toBeVisible();
    const live = page.getByRole('button', { name: 'Live', exact: true });
    await live.click();
    await expect(live).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByText('Live: new requests appear at the top as they arrive.')).toBeVisible();

    const pageRow = logRow(page, page, siteHost, '/?utm_source=e2e&ref=proxy-logs', 200);
    const missingRow = logRow(page, page, siteHost, '/e2e-missing.css?v=1', 404);
    const nobodyRootRow = logRow(page, page, unknownHost, '/', 404);
    const nobodyProbeRow = logRow(page, page, unknownHost, '/e2e-probe.php?id=7', 404);
    for (const row of [pageRow, missingRow, nobodyRootRow, nobodyProbeRow]) await expect(row).toBeVisible({ timeout: 20_000 });
    await expect(pageRow.locator('[data-slot="http-status"]')).toHaveText('200');
    await expect(pageRow.locator('[data-slot="http-status"]')).toHaveAttribute('data-status-class', '2xx');
    await expect(missingRow.locator('[data-slot="http-status"]')).toHaveAttribute('data-status-class', '4xx');
    await expect(missingRow).toContainText('/e2e-missing.css?v=1');
    await expect(missingRow.getByRole('link', { name: '127.0.0.1', exact: true })).toHaveAttribute('href', '/ip/127.0.0.1');
    // A request made while the page is open and Live is on arrives at the top, without a reload.
    expect((await viaEdge(edgePort, siteHost, '/?live=1', headers)).status).toBe(200);
    const liveRow = logRow(page, page, siteHost, '/?live=1', 200);
    await expect(liveRow).toBeVisible({ timeout: 20_000 });
    // Brought by the live tail (marked so), not by a reload of the list.
    await expect(liveRow).toHaveAttribute('data-live', 'true');
    const order = await logRows(page).evaluateAll((rows) => rows.map((row) => row.getAttribute('data-testid')));
    expect(order.indexOf(`proxy-log-${await rowId(liveRow)}`)).toBeLessThan(order.indexOf(`proxy-log-${await rowId(pageRow)}`));
    const ids = {
      page: await rowId(pageRow),
      missing: await rowId(missingRow),
      nobodyRoot: await rowId(nobodyRootRow),
      nobodyProbe: await rowId(nobodyProbeRow),
    };
    await live.click();
    await expect(live).toHaveAttribute('aria-pressed', 'false');

    // --- Status 4xx: only client errors, in the URL too.
    const filters = page.getByRole('search', { name: 'Filter the requests' });
    await filters.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: '4xx', exact: true }).click();
    await expect(page).toHaveURL(/[?&]status_class=4xx(&|$)/);
    await expect(filters.getByRole('combobox', { name: 'Status' })).toHaveText('4xx');
    await expect(pageRow).toBeHidden();
    for (const row of [missingRow, nobodyRootRow, nobodyProbeRow]) await expect(row).toBeVisible();
    for (const status of await logRows(page).locator('[data-slot="http-status"]').allTextContents()) {
      expect(status).toMatch(/^4\d\d$/);
    }

    // --- And the host nobody serves: its two requests, nothing else; both filters stay in the URL.
    const hostFilter = filters.getByRole('searchbox', { name: 'Host' });
    await hostFilter.fill(unknownHost);
    await hostFilter.press('Enter');
    await expect(page).toHaveURL(new RegExp(`[?&]host=${escapeRegExp(unknownHost)}(&|$)`));
    await expect(page).toHaveURL(/[?&]status_class=4xx(&|$)/);
    await expect(missingRow).toBeHidden();
    await expect(logRows(page)).toHaveCount(2);
    await expect(nobodyRootRow).toBeVisible();
    await expect(nobodyProbeRow).toBeVisible();
    await expect(page.getByText('2 requests shown · that is all of them')).toBeVisible();

    // A link reproduces the view: reloading keeps both filters.
    await page.reload();
    await expect(filters.getByRole('combobox', { name: 'Status' })).toHaveText('4xx');
    await expect(hostFilter).toHaveValue(unknownHost);
    await expect(logRows(page)).toHaveCount(2);

    // --- Clear filters: everything again, the URL without filters.
    await filters.getByRole('button', { name: 'Clear filters' }).click();
    await expect(page).toHaveURL(/\/proxy-logs$/);
    await expect(hostFilter).toHaveValue('');
    await expect(filters.getByRole('combobox', { name: 'Status' })).toHaveText('All statuses');
    for (const row of [pageRow, missingRow, nobodyRootRow, nobodyProbeRow]) await expect(row).toBeVisible();
    await expect(filters.getByRole('button', { name: 'Clear filters' })).toHaveCount(0);

    // --- A row opens its request (a click anywhere on it), with every field.
    await missingRow.getByRole('cell').filter({ hasText: '/e2e-missing.css' }).click();
    await expect(page).toHaveURL(new RegExp(`/proxy-logs/${ids.missing}$`));
    await expect(page).toHaveTitle(`Proxy Log #${ids.missing} - Launchbay`);
    await expect(page.getByRole('heading', { level: 1, name: `Proxy Log #${ids.missing}`, exact: true })).toBeVisible();
    await expect(page.getByRole('main')).toContainText(`${siteHost}/e2e-missing.css?v=1`);
    const request = page.getByRole('region', { name: 'Request', exact: true });
    await expect(field(request, 'Method')).toHaveText('GET');
    await expect(field(request, 'Host').getByRole('link', { name: siteHost, exact: true })).toHaveAttribute(
      'href',
      `/proxy-logs?host=${siteHost}`,
    );
    await expect(field(request, 'Path')).toHaveText('/e2e-missing.css');
    await expect(field(request, 'Query')).toContainText('?v=1');
    await expect(field(request, 'Status')).toHaveText('404');
    await expect(field(request, 'Duration')).toHaveText(/^[\d.,]+ ms$/);
    await expect(field(request, 'TLS version')).toHaveText('None (plain HTTP)');
    const client = page.getByRole('region', { name: 'Client', exact: true });
    await expect(field(client, 'IP address').getByRole('link', { name: '127.0.0.1', exact: true })).toHaveAttribute(
      'href',
      '/ip/127.0.0.1',
    );
    await expect(field(client, 'User agent')).toHaveText(userAgent);
    await expect(field(client, 'Referrer').getByRole('link', { name: referrer, exact: true })).toHaveAttribute('href', referrer);
    const routing = page.getByRole('region', { name: 'Routing', exact: true });
    await expect(field(routing, 'Route')).toHaveText(new RegExp(`^${escapeRegExp(siteHost)}/?$`));
    await expect(field(routing, 'Project').getByRole('link', { name, exact: true })).toHaveAttribute(
      'href',
      `/projects/${project.slug}`,
    );
    await expect(field(routing, 'Environment')).toHaveText('Production');
    await expect(field(routing, 'Deployment').getByRole('link', { name: `#${deploymentId}` })).toHaveAttribute(
      'href',
      `/projects/${project.slug}/deployments/${deploymentId}`,
    );
    await expect(routing).not.toContainText('No route matched');

    // --- The client IP: a loopback address has no place; the page lists its requests.
    await field(client, 'IP address').getByRole('link', { name: '127.0.0.1', exact: true }).click();
    await expect(page).toHaveURL(/\/ip\/127\.0\.0\.1$/);
    await expect(page).toHaveTitle('IP Lookup: 127.0.0.1 - Launchbay');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('127.0.0.1');
    const location = page.getByRole('region', { name: 'Location', exact: true });
    await expect(location).toContainText('Loopback address');
    await expect(location.getByText('Loopback address — the machine talking to itself, so it has no location.')).toBeVisible();
    await expect(location.getByText('Country', { exact: true })).toHaveCount(0);
    const fromIp = page.getByRole('region', { name: 'Requests from this IP', exact: true });
    await expect(fromIp.getByRole('link', { name: 'Filter in Proxy Logs' })).toHaveAttribute(
      'href',
      '/proxy-logs?range=all&client_ip=127.0.0.1',
    );
    for (const id of Object.values(ids)) await expect(fromIp.getByTestId(`proxy-log-${id}`)).toBeVisible();
    // The client is known here: no Client IP column.
    await expect(fromIp.getByRole('columnheader', { name: 'Client IP' })).toHaveCount(0);

    // A request nobody serves: the edge answered it itself, with no route and no project.
    await fromIp.getByTestId(`proxy-log-${ids.nobodyRoot}`).getByRole('cell').filter({ hasText: unknownHost }).click();
    await expect(page).toHaveURL(new RegExp(`/proxy-logs/${ids.nobodyRoot}$`));
    await expect(page.getByRole('heading', { level: 1, name: `Proxy Log #${ids.nobodyRoot}`, exact: true })).toBeVisible();
    await expect(routing).toContainText('No route matched — the edge answered itself.');
    await expect(field(routing, 'Route')).toHaveText('None');
    await expect(field(routing, 'Project')).toHaveText('None');
    await expect(field(routing, 'Upstream')).toHaveText('None (answered by the edge)');
    await expect(field(request, 'Host')).toHaveText(unknownHost);
    await expect(field(request, 'Path')).toHaveText('/');
    await expect(field(request, 'Query')).toHaveText('None');
    await expect(field(request, 'Status')).toHaveText('404');
    await page.getByRole('main').getByRole('link', { name: 'Proxy Logs', exact: true }).click();
    await expect(page).toHaveURL(/\/proxy-logs$/);

    // --- Restart: while the platform is down the edge keeps serving, and logs it once the database is back.
    const stoppedPath = `/?while=stopped-${run}`;
    try {
      await platform.stop();
      expect(platform.isRunning()).toBe(false);
      const served = await viaEdge(edgePort, siteHost, stoppedPath, headers);
      expect(served.status).toBe(200);
      expect(served.body).toContain('Logged site');
    } finally {
      await platform.start();
    }

    await signIn(page, platform.admin, '/proxy-logs');
    await expect(page.getByRole('heading', { level: 1, name: 'Proxy Logs', exact: true })).toBeVisible();
    for (const [row, path, status] of [
      [pageRow, '/?utm_source=e2e&ref=proxy-logs', '200'],
      [missingRow, '/e2e-missing.css?v=1', '404'],
      [nobodyRootRow, '/', '404'],
      [nobodyProbeRow, '/e2e-probe.php?id=7', '404'],
    ] as const) {
      await expect(row).toBeVisible();
      await expect(row.locator('[data-slot="http-status"]')).toHaveText(status);
      await expect(row.getByRole('cell').nth(4)).toHaveText(path);
    }
    expect({
      page: await rowId(pageRow),
      missing: await rowId(missingRow),
      nobodyRoot: await rowId(nobodyRootRow),
      nobodyProbe: await rowId(nobodyProbeRow),
    }).toEqual(ids);

    // The request made while the platform was down: the edge writes it once it reconnects.
    const stoppedRow = logRow(page, page, siteHost, stoppedPath, 200);
    await expect(async () => {
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await expect(stoppedRow).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 45_000, intervals: [1_000] });
    await expect(stoppedRow.locator('[data-slot="http-status"]')).toHaveText('200');
    expect(await rowId(stoppedRow)).toBeGreaterThan(Math.max(...Object.values(ids)));
  } finally {
    await platform.ensureRunning();
    // The site is served until its project is gone.
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});
