import { DEFAULT_NOTIFICATION_PREFERENCES } from '@launchbay/contract';
import { screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import { ProjectHealthTab } from './preferences-tabs';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn() } }));

function renderTab() {
  return renderWithProviders(
    <MemoryRouter>
      <ProjectHealthTab preferences={DEFAULT_NOTIFICATION_PREFERENCES} readOnly={false} />
    </MemoryRouter>,
  );
}

describe('ProjectHealthTab (spec section 5: alert forms)', () => {
  it('keeps Save Changes disabled until the form changes', async () => {
    const { user } = renderTab();
    const save = screen.getByRole('button', { name: 'Save Changes' });
    expect(save).toBeDisabled();
    await user.click(screen.getByRole('switch', { name: 'Build errors' }));
    expect(save).toBeEnabled();
  });

  it('shows the range messages for the threshold (1 to 1000) and the window (1 to 60)', async () => {
    const { user } = renderTab();
    const threshold = screen.getByLabelText('Error threshold');
    const window = screen.getByLabelText('Time window');
    await user.clear(threshold);
    await user.type(threshold, '1001');
    await user.clear(window);
    await user.type(window, '0');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Error threshold must be between 1 and 1000')).toBeInTheDocument();
    expect(screen.getByText('Time window must be between 1 and 60')).toBeInTheDocument();
    // The hint stays beside the message, and stays the input's description.
    expect(threshold).toHaveAccessibleDescription('Alert at this many errors per minute (1 to 1000).');
    expect(threshold).toHaveAttribute('aria-invalid', 'true');
  });
});
