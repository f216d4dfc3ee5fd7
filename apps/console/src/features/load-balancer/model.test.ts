import { describe, expect, it } from 'vitest';
import { EMPTY_ROUTE_FORM, formPathOf, healthCheckSummary, relativeSeconds, routeToForm, toRequestInput } from './model';
import { lbRoute } from './test-fixtures';

describe('load-balancer form model', () => {
  it('maps body paths (server errors, zod issues) to the fields that hold them', () => {
    expect(formPathOf('domain')).toBe('domain');
    expect(formPathOf('target.project_id')).toBe('project_id');
    expect(formPathOf('target.environment_id')).toBe('environment_id');
    expect(formPathOf('target.upstreams')).toBe('upstreams.root');
    expect(formPathOf('target.upstreams.0')).toBe('upstreams.0.address');
    expect(formPathOf(['target', 'upstreams', 1], [0, 3])).toBe('upstreams.3.address');
    expect(formPathOf('health_check.interval_seconds')).toBe('health_check.interval_seconds');
    expect(formPathOf('target')).toBeNull();
    expect(formPathOf('target.kind')).toBeNull();
    expect(formPathOf('something_else')).toBeNull();
  });

  it('leaves empty address rows out of the body and remembers the rows the others came from', () => {
    const values = {
      ...EMPTY_ROUTE_FORM,
      upstreams: [{ address: '' }, { address: ' a:1 ' }, { address: '  ' }, { address: 'b:2' }],
    };
    const { body, rowOf } = toRequestInput(values);
    expect(body).toMatchObject({ target: { kind: 'upstreams', upstreams: ['a:1', 'b:2'] } });
    expect(rowOf).toEqual([1, 3]);
  });

  it('round-trips a route into the form', () => {
    const values = routeToForm(lbRoute());
    expect(values.upstreams).toEqual([{ address: '10.0.0.5:3000' }, { address: '10.0.0.6:3000' }]);
    expect(values.health_check).toEqual({ enabled: true, path: '/health', interval_seconds: '5', timeout_seconds: '2' });
    expect(toRequestInput(values).body).toEqual({
      domain: 'api.example.com',
      target: { kind: 'upstreams', upstreams: ['10.0.0.5:3000', '10.0.0.6:3000'] },
      health_check: { enabled: true, path: '/health', interval_seconds: 5, timeout_seconds: 2 },
    });
  });

  it('summarises the health check and reads recent times to the second', () => {
    expect(healthCheckSummary({ enabled: true, path: '/health', interval_seconds: 5, timeout_seconds: 2 })).toBe(
      'GET /health every 5 s',
    );
    expect(healthCheckSummary({ enabled: false, path: '/', interval_seconds: 5, timeout_seconds: 2 })).toBeNull();
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(relativeSeconds('2026-01-01T11:59:58Z', now)).toBe('just now');
    expect(relativeSeconds('2026-01-01T11:59:48Z', now)).toBe('12 seconds ago');
    expect(relativeSeconds('2026-01-01T11:57:00Z', now)).toBe('3 minutes ago');
    expect(relativeSeconds(null, now)).toBe('never');
  });
});
