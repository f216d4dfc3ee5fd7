import type { Connectivity, PlatformSettings } from '@launchbay/contract';
import { expect, signIn, test, toast } from '../fixtures';

const ACCESS_MODE_LABEL: Record<PlatformSettings['access_mode'], string> = {
  local: 'Local',
  nat: 'NAT',
  cloudflare_tunnel: 'Cloudflare Tunnel',
  direct: 'Direct',
};

const DOMAIN = 'e2e-apps.example.test';

test('an admin sets a base domain on External Connectivity, sees its DNS records and checks one', async ({ page, platform }) => {
  const readSettings = async () => (await (await platform.adminApi.get('/api/settings')).json()) as PlatformSettings;
  const before = await readSettings();
  try {
    // Start without a base domain (another spec on this worker may have left one).
    if (before.base_domain !== null) {
      expect((await platform.adminApi.put('/api/settings', { data: { base_domain: null } })).status()).toBe(200);
    }
    // The e2e platform has no PUBLIC_IP: the address is whatever an interface has, or unknown, and
    // the ports are checked against it (or not at all). The page must say what the server found.
    const found = (await (await platform.adminApi.get('/api/platform/connectivity')).json()) as Connectivity;

    await signIn(page, platform.admin);
    await page.getByTestId('sidebar').getByRole('link', { name: 'External Connectivity', exact: true }).click();
    await expect(page).toHaveURL(/\/setup\/connectivity$/);
    await expect(page.getByRole('heading', { level: 1, name: 'External Connectivity' })).toBeVisible();
    await expect(page).toHaveTitle('External Connectivity - Launchbay');

    const access = page.getByRole('region', { name: 'Access mode' });
    await expect(access.getByTestId('connectivity-access-mode')).toContainText(ACCESS_MODE_LABEL[before.access_mode]);

    const ip = page.getByRole('region', { name: 'Public IP' });
    await expect(ip.getByTestId('connectivity-public-ip')).toHaveText(found.public_ip.ip ?? 'Unknown');
    await expect(ip.getByTestId('connectivity-public-ip-source')).toHaveText(
      found.public_ip.ip
        ? `Source: ${found.public_ip.source}.`
        : 'No public address on this machine; set PUBLIC_IP if it is reached through NAT.',
    );

    const ports = page.getByRole('region', { name: 'Ports 80 and 443' });
    for (const port of found.ports) {
      const row = ports.getByTestId(`port-${port.port}`);
      await expect(row).toContainText(port.port === 80 ? 'HTTP, and HTTP-01 certificate validation' : 'HTTPS');
      await expect(row.getByTestId('port-reachability')).toHaveText(
        port.reachable === null ? 'Not checked' : port.reachable ? 'Reachable' : 'Not reachable',
      );
      await expect(row).toContainText(port.detail);
    }
    await ports.getByRole('button', { name: 'Check again' }).click();
    await expect(ports.getByRole('button', { name: 'Check again' })).toBeEnabled();

    const dns = page.getByRole('region', { name: 'DNS records' });
    await expect(dns.getByTestId('dns-records-empty')).toHaveText(
      'No base domain is set. Set one with the form above to see the records to create.',
    );

    // Set the base domain: the records it needs appear.
    const baseDomain = access.getByLabel('Base domain');
    await expect(baseDomain).toHaveValue('');
    await baseDomain.fill(DOMAIN);
    await access.getByRole('button', { name: 'Save connectivity settings' }).click();
    await expect(toast(page, 'Connectivity settings saved')).toBeVisible();
    expect((await readSettings()).base_domain).toBe(DOMAIN);

    const records = dns.getByTestId('dns-record');
    await expect(records).toHaveCount(2);
    const value = found.public_ip.ip ?? "this server's public IP address";
    await expect(records.nth(0)).toContainText(DOMAIN);
    await expect(records.nth(0)).toContainText(value);
    await expect(records.nth(1)).toContainText(`*.${DOMAIN}`);
    await expect(records.nth(1)).toContainText(value);

    // Names under .test never resolve (and the e2e machine has no network).
    await dns.getByRole('button', { name: `Check ${DOMAIN}`, exact: true }).click();
    const result = dns.getByTestId('dns-check-result');
    await expect(result).toHaveText(`${DOMAIN} does not resolve yet`, { timeout: 20_000 });
    await expect(result).toHaveAttribute('data-ok', 'false');

    // Clear it again from the form: an empty field means no base domain.
    await baseDomain.fill('');
    await access.getByRole('button', { name: 'Save connectivity settings' }).click();
    await expect(dns.getByTestId('dns-records-empty')).toBeVisible();
    await expect(records).toHaveCount(0);
    expect((await readSettings()).base_domain).toBeNull();
  } finally {
    // Other tests on this worker's platform expect the base domain they found.
    const response = await platform.adminApi.put('/api/settings', { data: { base_domain: before.base_domain } });
    expect(response.status()).toBe(200);
  }
});
