import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiRequestError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { renderWithProviders } from '@/test/render';
import { EMPTY_ROUTE_FORM, type LbRouteRequest, type RouteFormValues, routeToForm } from './model';
import { RouteForm } from './route-form';
import { lbRoute, stubApi } from './test-fixtures';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

function renderForm(
  options: { onSubmit?: (body: LbRouteRequest) => Promise<void>; mode?: 'create' | 'edit'; defaultValues?: RouteFormValues } = {},
) {
  const onSubmit = options.onSubmit ?? vi.fn(async () => {});
  const mode = options.mode ?? 'create';
  const result = renderWithProviders(
    <RouteForm
      mode={mode}
      defaultValues={options.defaultValues ?? EMPTY_ROUTE_FORM}
      submitLabel={mode === 'create' ? 'Create route' : 'Save changes'}
      failureTitle={mode === 'create' ? 'Failed to create route' : 'Failed to update route'}
      onSubmit={onSubmit}
    />,
  );
  return { ...result, onSubmit };
}

const submit = (name = 'Create route') => screen.getByRole('button', { name });
const upstream = (n: number) => screen.getByLabelText(`Upstream ${n}`);

describe('RouteForm validation (the contract’s rules and messages)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('refuses a domain that is not one and an address without a port, and sends nothing', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Domain'), 'not a domain');
    await user.type(upstream(1), '10.0.0.5');
    await user.click(submit());
    expect(await screen.findByText('Enter a domain such as api.example.com')).toBeInTheDocument();
    expect(screen.getByText('Enter an address such as 10.0.0.5:3000')).toBeInTheDocument();
    expect(screen.getByLabelText('Domain')).toHaveAttribute('aria-invalid', 'true');
    expect(upstream(1)).toHaveAttribute('aria-invalid', 'true');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('asks for at least one upstream when every address row is empty', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Domain'), 'api.example.com');
    await user.click(submit());
    expect(await screen.findByText('Add at least one upstream')).toBeInTheDocument();
    expect(screen.queryByText('Enter a domain such as api.example.com')).not.toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('puts a bad address under its own row (empty rows are skipped), and refuses the same upstream twice', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Domain'), 'api.example.com');
    await user.click(screen.getByRole('button', { name: 'Add upstream' }));
    await user.click(screen.getByRole('button', { name: 'Add upstream' }));
    await user.type(upstream(2), '10.0.0.5:3000');
    await user.type(upstream(3), '10.0.0.6:99999');
    await user.click(submit());
    expect(await screen.findByText('The port must be at most 65535')).toBeInTheDocument();
    expect(upstream(3)).toHaveAttribute('aria-invalid', 'true');
    expect(upstream(1)).not.toHaveAttribute('aria-invalid');
    expect(upstream(2)).not.toHaveAttribute('aria-invalid');

    await user.clear(upstream(3));
    await user.type(upstream(3), '10.0.0.5:3000');
    await user.click(submit());
    expect(await screen.findByText('Each upstream once')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('checks the health check settings, with the contract’s messages', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Domain'), 'api.example.com');
    await user.type(upstream(1), '10.0.0.5:3000');
    expect(screen.getByLabelText('Path')).toHaveValue('/');
    expect(screen.getByLabelText('Interval (seconds)')).toHaveValue(5);
    expect(screen.getByLabelText('Timeout (seconds)')).toHaveValue(2);
    await user.clear(screen.getByLabelText('Path'));
    await user.type(screen.getByLabelText('Path'), 'health');
    await user.clear(screen.getByLabelText('Interval (seconds)'));
    await user.type(screen.getByLabelText('Interval (seconds)'), '0');
    await user.clear(screen.getByLabelText('Timeout (seconds)'));
    await user.type(screen.getByLabelText('Timeout (seconds)'), '61');
    await user.click(submit());
    expect(await screen.findByText('The path must start with /')).toBeInTheDocument();
    expect(screen.getByText('At least 1 second')).toBeInTheDocument();
    expect(screen.getByText('At most 60 seconds')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('sends the trimmed, lower-cased domain, the addresses and the health check', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Domain'), '  API.Example.com ');
    await user.type(upstream(1), ' 10.0.0.5:3000 ');
    await user.click(screen.getByRole('button', { name: 'Add upstream' }));
    // '[[' types one '[' (user-event's key syntax).
    await user.type(upstream(2), '[[::1]:3001');
    await user.clear(screen.getByLabelText('Path'));
    await user.type(screen.getByLabelText('Path'), '/health');
    await user.click(submit());
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({
      domain: 'api.example.com',
      target: { kind: 'upstreams', upstreams: ['10.0.0.5:3000', '[::1]:3001'] },
      health_check: { enabled: true, path: '/health', interval_seconds: 5, timeout_seconds: 2 },
    });
  });

  it('removes rows but always keeps one, and hides the settings when health checks are switched off', async () => {
    const { user, onSubmit } = renderForm();
    expect(screen.getByRole('button', { name: 'Remove upstream 1' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Add upstream' }));
    await user.type(upstream(1), 'first:1');
    await user.type(upstream(2), '10.0.0.9:80');
    await user.click(screen.getByRole('button', { name: 'Remove upstream 1' }));
    expect(screen.getAllByRole('textbox', { name: /^Upstream \d$/ })).toHaveLength(1);
    expect(upstream(1)).toHaveValue('10.0.0.9:80');

    await user.type(screen.getByLabelText('Domain'), 'api.example.com');
    await user.clear(screen.getByLabelText('Path'));
    await user.click(screen.getByRole('switch', { name: 'Enabled' }));
    expect(screen.queryByLabelText('Path')).not.toBeInTheDocument();
    expect(screen.getByText('Every upstream gets requests in turn, whether it answers or not.')).toBeInTheDocument();
    await user.click(submit());
    // The hidden (invalid) settings do not block the save: the defaults go with checks off.
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ health_check: { enabled: false, path: '/', interval_seconds: 5, timeout_seconds: 2 } }),
    );
  });
});

describe('RouteForm: a project environment as the target', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists the projects, then the chosen project’s environments (production first chosen), and sends their ids', async () => {
    const { callsTo } = stubApi();
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Domain'), 'www.example.com');
    await user.click(screen.getByRole('radio', { name: /Project environment/ }));
    expect(screen.queryByLabelText('Upstream 1')).not.toBeInTheDocument();
    const environment = screen.getByRole('combobox', { name: 'Environment' });
    expect(environment).toBeDisabled();

    // Nothing chosen: the selects say what is missing.
    await user.click(submit());
    expect(await screen.findByText('Choose a project')).toBeInTheDocument();
    expect(screen.getByText('Choose an environment')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.click(screen.getByRole('combobox', { name: 'Project' }));
    await user.click(await screen.findByRole('option', { name: 'Shop' }));
    await vi.waitFor(() => expect(environment).toHaveTextContent('Production'));
    expect(callsTo('GET', '/api/projects/5')).toHaveLength(1);
    expect(environment).toBeEnabled();
    await user.click(environment);
    const options = await screen.findAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual(['Production', 'Staging']);
    await user.click(screen.getByRole('option', { name: 'Staging' }));
    expect(environment).toHaveTextContent('Staging');

    await user.click(submit());
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({
        domain: 'www.example.com',
        target: { kind: 'environment', project_id: 5, environment_id: 12 },
      }),
    );
  });

  it('opens an environment route for editing with its project and environment chosen, the domain read-only', async () => {
    stubApi();
    const route = lbRoute({
      domain: 'www.example.com',
      target: { kind: 'environment', project_id: 5, environment_id: 11 },
      target_label: 'Shop / production',
    });
    const { user, onSubmit } = renderForm({ mode: 'edit', defaultValues: routeToForm(route) });
    expect(screen.getByLabelText('Domain')).toHaveValue('www.example.com');
    expect(screen.getByLabelText('Domain')).toHaveAttribute('readonly');
    expect(screen.getByRole('radio', { name: /Project environment/ })).toBeChecked();
    await vi.waitFor(() => expect(screen.getByRole('combobox', { name: 'Project' })).toHaveTextContent('Shop'));
    await vi.waitFor(() => expect(screen.getByRole('combobox', { name: 'Environment' })).toHaveTextContent('Production'));
    await user.click(submit('Save changes'));
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ target: { kind: 'environment', project_id: 5, environment_id: 11 } }),
    );
  });
});

describe('RouteForm: the server’s refusals', () => {
  it('puts a 409 on the domain and its detail in the failure toast', async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiRequestError({
        status: 409,
        detail: 'A route for api.example.com already exists',
        errors: [{ path: 'domain', message: 'This domain already has a route' }],
      });
    });
    const { user } = renderForm({ onSubmit });
    await user.type(screen.getByLabelText('Domain'), 'api.example.com');
    await user.type(upstream(1), '10.0.0.5:3000');
    await user.click(submit());
    expect(await screen.findByText('This domain already has a route')).toBeInTheDocument();
    expect(screen.getByLabelText('Domain')).toHaveAttribute('aria-invalid', 'true');
    expect(vi.mocked(toast.error)).toHaveBeenCalledWith('Failed to create route', {
      description: 'A route for api.example.com already exists',
    });
  });

  it('maps target.upstreams.N to the row the address came from, and health_check paths to their fields', async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiRequestError({
        status: 400,
        detail: 'Validation failed',
        errors: [
          { path: 'target.upstreams.1', message: 'Not reachable from this server' },
          { path: 'health_check.timeout_seconds', message: 'Shorter than the interval, please' },
        ],
      });
    });
    const route = lbRoute();
    const values = routeToForm(route);
    // An empty row first: body index 1 is the third row.
    values.upstreams = [{ address: '' }, ...values.upstreams];
    const { user } = renderForm({ mode: 'edit', defaultValues: values, onSubmit });
    await user.click(submit('Save changes'));
    const list = screen.getByRole('list', { name: 'Upstream addresses' });
    const rows = within(list).getAllByRole('listitem');
    expect(await within(rows[2] as HTMLElement).findByText('Not reachable from this server')).toBeInTheDocument();
    expect(upstream(3)).toHaveAttribute('aria-invalid', 'true');
    expect(upstream(2)).not.toHaveAttribute('aria-invalid');
    expect(screen.getByText('Shorter than the interval, please')).toBeInTheDocument();
    expect(screen.getByLabelText('Timeout (seconds)')).toHaveAttribute('aria-invalid', 'true');
    expect(vi.mocked(toast.error)).toHaveBeenCalledWith('Failed to update route', { description: 'Validation failed' });
  });

  it('puts a wrong environment under the environment select', async () => {
    stubApi();
    const onSubmit = vi.fn(async () => {
      throw new ApiRequestError({
        status: 400,
        detail: 'Validation failed',
        errors: [{ path: 'target.environment_id', message: 'No such environment in this project' }],
      });
    });
    const values: RouteFormValues = {
      ...EMPTY_ROUTE_FORM,
      domain: 'www.example.com',
      target_kind: 'environment',
      project_id: '5',
      environment_id: '11',
    };
    const { user } = renderForm({ defaultValues: values, onSubmit });
    await user.click(submit());
    expect(await screen.findByText('No such environment in this project')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Environment' })).toHaveAttribute('aria-invalid', 'true');
    vi.unstubAllGlobals();
  });
});
