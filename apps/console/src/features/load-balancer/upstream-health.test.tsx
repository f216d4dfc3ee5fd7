import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '@/test/render';
import { lbRoute } from './test-fixtures';
import { healthState, UpstreamHealthList } from './upstream-health';

const CHECK = { enabled: true, path: '/health', interval_seconds: 5, timeout_seconds: 2 };

function item(upstream: string) {
  return screen.getAllByTestId('upstream-health').find((node) => node.dataset.upstream === upstream) as HTMLElement;
}

describe('upstream health', () => {
  it('reads the four states from what the edge saw and whether checks are on', () => {
    expect(healthState({ healthy: true }, true)).toBe('healthy');
    expect(healthState({ healthy: false }, true)).toBe('unhealthy');
    expect(healthState({ healthy: null }, true)).toBe('unchecked');
    expect(healthState(undefined, true)).toBe('unchecked');
    expect(healthState({ healthy: false }, false)).toBe('off');
  });

  it('shows Healthy in green, and Unhealthy in red with the error and since when', () => {
    const route = lbRoute();
    renderWithProviders(<UpstreamHealthList upstreams={route.upstream_health} check={route.health_check} />);
    const healthy = item('10.0.0.5:3000');
    expect(within(healthy).getByText('10.0.0.5:3000')).toBeInTheDocument();
    expect(within(healthy).getByText('Healthy').closest('[data-slot="health-badge"]')).toHaveAttribute('data-state', 'healthy');
    expect(healthy).not.toHaveTextContent('connection refused');

    const unhealthy = item('10.0.0.6:3000');
    const badge = within(unhealthy).getByText('Unhealthy').closest('[data-slot="health-badge"]');
    expect(badge).toHaveAttribute('data-state', 'unhealthy');
    expect(badge?.className).toContain('text-destructive');
    expect(unhealthy).toHaveTextContent('connection refused · since 12 seconds ago');
  });

  it('says Not checked yet before the first check, and Health checks off when they are', () => {
    const fresh = [{ upstream: '10.0.0.7:3000', healthy: null, since: null, checked_at: null, error: null }];
    const { rerender } = renderWithProviders(<UpstreamHealthList upstreams={fresh} check={CHECK} />);
    expect(within(item('10.0.0.7:3000')).getByText('Not checked yet')).toBeInTheDocument();

    rerender(<UpstreamHealthList upstreams={fresh} check={{ ...CHECK, enabled: false }} />);
    expect(within(item('10.0.0.7:3000')).getByText('Health checks off')).toBeInTheDocument();
  });

  it('shows the state alone for an environment whose upstreams the edge has not checked yet', () => {
    const { rerender } = renderWithProviders(<UpstreamHealthList upstreams={[]} check={CHECK} />);
    expect(screen.getByText('Not checked yet')).toBeInTheDocument();
    rerender(<UpstreamHealthList upstreams={[]} check={{ ...CHECK, enabled: false }} />);
    expect(screen.getByText('Health checks off')).toBeInTheDocument();
  });

  it('explains the badge in a tooltip on focus', async () => {
    const route = lbRoute();
    const { user } = renderWithProviders(<UpstreamHealthList upstreams={route.upstream_health} check={route.health_check} />);
    await user.tab();
    await user.tab();
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      /Unhealthy since .+, last checked just now\. It gets no requests until it answers its health check again\./,
    );
  });
});
