import http from 'node:http';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import type { Page } from '@playwright/test';
import { expect, signIn, test, toast, unique } from '../fixtures';
import { waitForDeployment } from '../support/deployments';

/*
 * A project's own domains in the console against the real platform and edge: a static project
 * deployed from the testkit's git server, its settings/domains page adds a name (the edge serves
 * the site for that Host at once), then www redirecting to it (a 308 through the edge, path and
 * query kept), the same name again (the server's 409 under the field), a removal the server
 * refuses while www still redirects to the name, and www removed (the edge no longer answers it).
 */

const APEX = 'e2e-brand.test';
const WWW = `www.${APEX}`;

type Project = { id: number; name: string; slug: string; url: string; last_deployment: { id: number } | null };

/**
 * A GET through the edge on 127.0.0.1:{port} with the name in the Host header, as a visitor whose
 * DNS points the name at this server sends it (node:http: fetch does not let the caller set Host).
 */
function viaEdge(port: number, host: string, path = '/'): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers: { host }, agent: false, timeout: 5000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, location: response.headers.location, body }));
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${host}${path} through the edge timed out`)));
    request.on('error', reject);
  });
}

/** The toast titled `title` whose description says `description` (an earlier toast of the same title may still show). */
const toastSaying = (page: Page, title: string, description: string) => toast(page, title).filter({ hasText: description });

let git: GitServer;

test.beforeAll(async () => {
  git = await startGitServer();
});

test.afterAll(async () => {
  await git?.close();
});

test('a project domain serves production through the edge, www redirects to it with a 308, and is removed', async ({
  page,
  platform,
}) => {
  test.setTimeout(180_000);
  const run = unique('project-domains');
  const name = `Brand ${run}`;
  const repo = await git.createRepo(
    `e2e/${run}`,
    { 'index.html': `<!doctype html><html><head><title>Brand</title></head><body><h1>Brand site ${run}</h1></body></html>` },
    { message: 'A static site for the project domains' },
  );
  const created = await platform.adminApi.post('/api/projects', { data: { name, git_url: repo.url, branch: 'main' } });
  expect(created.status(), await created.text()).toBe(201);
  const project = (await created.json()) as Project;

  try {
    const deployment = await waitForDeployment(platform.adminApi, project.id, project.last_deployment?.id ?? 0);
    expect(deployment.status, deployment.error ?? '').toBe('ready');
    const generated = new URL(project.url);
    const edgePort = Number(generated.port || 80);
    // Nothing answers for the name before it is added.
    expect((await viaEdge(edgePort, APEX)).status).toBe(404);

    // --- The page: in the project's settings, with no domain yet.
    await signIn(page, platform.admin, `/projects/${project.slug}/settings/domains`);
    await expect(page).toHaveTitle(`${name} - Domains - Launchbay`);
    await expect(
      page.getByRole('navigation', { name: 'Project settings' }).getByRole('link', { name: 'Domains' }),
    ).toHaveAttribute('aria-current', 'page');
    const section = page.getByRole('region', { name: 'Domains', exact: true });
    await expect(section.getByRole('heading', { level: 2, name: 'Domains', exact: true })).toBeVisible();
    await expect(
      section.getByText(`The names this project answers at besides its generated address, ${generated.host}.`, { exact: true }),
    ).toBeVisible();
    await expect(section.getByRole('heading', { name: 'No domains yet', exact: true })).toBeVisible();

    // --- Add the name: production by default, the DNS step spelled out for it.
    const form = page.getByRole('region', { name: 'Add domain', exact: true });
    await expect(form.getByRole('combobox', { name: 'Environment' })).toHaveText('Production');
    await expect(form.getByRole('switch', { name: 'Redirect to another domain' })).toBeDisabled();
    await form.getByLabel('Domain', { exact: true }).fill(APEX);
    await expect(form.getByRole('note')).toHaveText(
      `At your DNS provider, create an A record for ${APEX} pointing to this server. Once it resolves here, its certificate can be issued in Domains.`,
    );
    await form.getByRole('button', { name: 'Add domain' }).click();
    await expect(toastSaying(page, 'Domain added', `${APEX} serves production`)).toBeVisible();
    await expect(form.getByLabel('Domain', { exact: true })).toHaveValue('');

    const apexRow = page.getByTestId(`project-domain-${APEX}`);
    const apexLink = apexRow.getByRole('link', { name: APEX, exact: true });
    await expect(apexLink).toHaveAttribute('href', `http://${APEX}${edgePort === 80 ? '' : `:${edgePort}`}`);
    await expect(apexLink).toHaveAttribute('target', '_blank');
    await expect(apexRow.locator('[data-slot="domain-does"]')).toHaveText('Serves production');
    await expect(apexRow.locator('[data-slot="certificate"]')).toHaveText('Certificate: No certificate yet — Manage certificate');
    await expect(apexRow.getByRole('link', { name: 'Manage certificate' })).toHaveAttribute('href', /^\/domains\/\d+$/);

    // --- The edge serves the site for that Host, without a restart.
    await expect.poll(async () => (await viaEdge(edgePort, APEX)).status, { timeout: 15_000 }).toBe(200);
    expect((await viaEdge(edgePort, `${APEX}:${edgePort}`)).body).toContain(`Brand site ${run}`);

    // --- The same name again: the server's 409 under the field, its detail in the toast.
    await form.getByLabel('Domain', { exact: true }).fill(APEX);
    await form.getByRole('button', { name: 'Add domain' }).click();
    await expect(form.getByText(`Already a domain of ${name}`, { exact: true })).toBeVisible();
    await expect(form.getByLabel('Domain', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await expect(toastSaying(page, 'Failed to add domain', `${APEX} is a domain of ${name}`)).toBeVisible();

    // --- www redirecting to the name.
    await form.getByLabel('Domain', { exact: true }).fill(WWW);
    const redirect = form.getByRole('switch', { name: 'Redirect to another domain' });
    await redirect.click();
    await expect(redirect).toBeChecked();
    await expect(form.getByRole('combobox', { name: 'Environment' })).toHaveCount(0);
    await form.getByRole('combobox', { name: 'Redirect to' }).click();
    await page.getByRole('option', { name: APEX, exact: true }).click();
    await expect(form.getByRole('combobox', { name: 'Redirect to' })).toHaveText(APEX);
    await form.getByRole('button', { name: 'Add domain' }).click();
    await expect(toastSaying(page, 'Domain added', `${WWW} redirects to ${APEX}`)).toBeVisible();
    const wwwRow = page.getByTestId(`project-domain-${WWW}`);
    await expect(wwwRow.locator('[data-slot="domain-does"]')).toHaveText(`Redirects to ${APEX}`);
    await expect(apexRow.locator('[data-slot="domain-does"]')).toHaveText('Serves production');

    // Through the edge: a permanent redirect to the name, the port the visitor used, path and query kept.
    await expect
      .poll(async () => (await viaEdge(edgePort, `${WWW}:${edgePort}`, '/docs/start?from=e2e')).status, { timeout: 15_000 })
      .toBe(308);
    const moved = await viaEdge(edgePort, `${WWW}:${edgePort}`, '/docs/start?from=e2e');
    expect(moved.location).toBe(`http://${APEX}:${edgePort}/docs/start?from=e2e`);

    // --- The name www redirects to cannot go first.
    await apexRow.getByRole('button', { name: `Actions for ${APEX}` }).click();
    await page.getByRole('menuitem', { name: 'Remove' }).click();
    const refuse = page.getByRole('alertdialog', { name: `Remove ${APEX}?` });
    await refuse.getByRole('button', { name: 'Remove domain' }).click();
    await expect(toastSaying(page, 'Failed to remove domain', `${WWW} redirects here: change or remove it first`)).toBeVisible();
    await refuse.getByRole('button', { name: 'Cancel' }).click();
    await expect(refuse).toBeHidden();
    await expect(apexRow).toBeVisible();

    // --- Remove www after the confirmation: gone from the list and from the edge.
    await wwwRow.getByRole('button', { name: `Actions for ${WWW}` }).click();
    await page.getByRole('menuitem', { name: 'Remove' }).click();
    const confirm = page.getByRole('alertdialog', { name: `Remove ${WWW}?` });
    await expect(confirm).toContainText(
      `Requests for ${WWW} get the edge’s “no app here” page afterwards. Its certificate stays in Domains.`,
    );
    await confirm.getByRole('button', { name: 'Remove domain' }).click();
    await expect(toastSaying(page, 'Domain removed', WWW)).toBeVisible();
    await expect(confirm).toBeHidden();
    await expect(wwwRow).toHaveCount(0);
    await expect(apexRow.locator('[data-slot="domain-does"]')).toHaveText('Serves production');
    await expect.poll(async () => (await viaEdge(edgePort, WWW)).status, { timeout: 15_000 }).toBe(404);
    expect((await viaEdge(edgePort, APEX)).status).toBe(200);

    // The list is the server's: a reload shows the same.
    await page.reload();
    await expect(page.getByTestId(`project-domain-${APEX}`)).toBeVisible();
    await expect(page.getByTestId(`project-domain-${WWW}`)).toHaveCount(0);
  } finally {
    // The project's domains go with it; their (pending) certificates stay in Domains unless removed.
    await platform.adminApi.delete(`/api/projects/${project.id}`);
    for (const domain of [WWW, APEX]) await platform.adminApi.delete(`/api/domains/${domain}`);
  }
});
