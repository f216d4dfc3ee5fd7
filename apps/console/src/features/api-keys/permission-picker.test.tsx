import type { Permission } from '@launchbay/contract';
import { screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import type { PermissionCatalogue } from './api';
import { PermissionPicker } from './permission-picker';

const catalogue: PermissionCatalogue = {
  permissions: [
    { name: 'projects:read', area: 'projects', access: 'read', description: 'Read projects' },
    { name: 'projects:write', area: 'projects', access: 'write', description: 'Create and change projects' },
    { name: 'domains:read', area: 'domains', access: 'read', description: 'Read domains' },
    { name: 'domains:write', area: 'domains', access: 'write', description: 'Create and change domains' },
  ],
  presets: [
    { role: 'reader', label: 'Read-only', permissions: ['projects:read', 'domains:read'] },
    { role: 'user', label: 'Everything', permissions: ['domains:read', 'domains:write', 'projects:read', 'projects:write'] },
  ],
};

/** The picker is controlled: this host keeps its value, and reports every change. */
function Host({ initial = [], onChange }: { initial?: Permission[]; onChange?: (next: Permission[]) => void }) {
  const [value, setValue] = useState<Permission[]>(initial);
  return (
    <PermissionPicker
      catalogue={catalogue}
      value={value}
      onChange={(next) => {
        setValue(next);
        onChange?.(next);
      }}
    />
  );
}

const box = (name: string) => screen.getByRole('checkbox', { name });

describe('PermissionPicker', () => {
  it('ticks Read along with Write: write includes read', async () => {
    const onChange = vi.fn();
    const { user } = renderWithProviders(<Host onChange={onChange} />);
    await user.click(box('Create and change projects'));
    expect(onChange).toHaveBeenLastCalledWith(['projects:read', 'projects:write']);
    expect(box('Read projects')).toBeChecked();
    expect(box('Create and change projects')).toBeChecked();
    expect(screen.getByText('2 of 4 selected')).toBeInTheDocument();
  });

  it('clears Write when Read is cleared', async () => {
    const onChange = vi.fn();
    const { user } = renderWithProviders(<Host initial={['projects:read', 'projects:write']} onChange={onChange} />);
    await user.click(box('Read projects'));
    expect(onChange).toHaveBeenLastCalledWith([]);
    expect(box('Create and change projects')).not.toBeChecked();
  });

  it('selects a whole column, and shows a partly ticked column as mixed', async () => {
    const onChange = vi.fn();
    const { user } = renderWithProviders(<Host initial={['domains:read']} onChange={onChange} />);
    expect(box('Read access to every area')).toHaveAttribute('data-state', 'indeterminate');
    await user.click(box('Write access to every area'));
    expect(onChange).toHaveBeenLastCalledWith(['domains:read', 'domains:write', 'projects:read', 'projects:write']);
    expect(box('Read access to every area')).toBeChecked();
    expect(screen.getByText('4 of 4 selected')).toBeInTheDocument();
  });

  it('applies a role preset, marks it pressed, and clears', async () => {
    const { user } = renderWithProviders(<Host />);
    expect(screen.getByRole('button', { name: 'Clear' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Reader' }));
    expect(screen.getByRole('button', { name: 'Reader' })).toHaveAttribute('aria-pressed', 'true');
    expect(box('Read domains')).toBeChecked();
    expect(box('Create and change domains')).not.toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(screen.getByText('0 of 4 selected')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reader' })).toHaveAttribute('aria-pressed', 'false');
  });
});
