import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ConfirmDialog } from './confirm-dialog';

function Host({ onConfirm }: { onConfirm: (close: () => void) => Promise<void> }) {
  const [open, setOpen] = useState(true);
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={setOpen}
      title="Delete Ops?"
      description="This action cannot be undone."
      confirmLabel="Delete provider"
      onConfirm={() => onConfirm(() => setOpen(false))}
    />
  );
}

describe('ConfirmDialog', () => {
  it('shows the title, description and labels, and Cancel closes it without confirming', async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn(async () => {});
    render(<Host onConfirm={onConfirm} />);
    const dialog = screen.getByRole('alertdialog', { name: 'Delete Ops?' });
    expect(dialog).toHaveAccessibleDescription('This action cannot be undone.');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('stays open and cannot be dismissed while the action runs; the caller closes it', async () => {
    const user = userEvent.setup();
    let finish: () => void = () => {};
    const onConfirm = vi.fn(
      (close: () => void) =>
        new Promise<void>((resolve) => {
          finish = () => {
            close();
            resolve();
          };
        }),
    );
    render(<Host onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Delete provider' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeDisabled();
    await user.keyboard('{Escape}');
    expect(screen.getByRole('alertdialog')).toBeInTheDocument();
    finish();
    await vi.waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
  });

  it('stays open when the action fails, so the user can try again', async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn(async () => {});
    render(<Host onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Delete provider' }));
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Delete provider' })).toBeEnabled());
    expect(screen.getByRole('alertdialog')).toBeInTheDocument();
  });

  it('with confirmText, the confirm button works only once that exact text is typed', async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn(async () => {});
    render(
      <ConfirmDialog
        open
        onOpenChange={() => {}}
        title="Delete acme-site?"
        description="Its deployments stop."
        confirmLabel="Delete project"
        confirmText="acme-site"
        onConfirm={onConfirm}
      />,
    );
    const confirm = screen.getByRole('button', { name: 'Delete project' });
    expect(confirm).toBeDisabled();
    const field = screen.getByLabelText('Type acme-site to confirm.');
    await user.type(field, 'acme');
    expect(confirm).toBeDisabled();
    await user.type(field, '-site');
    expect(confirm).toBeEnabled();
    await user.click(confirm);
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });
});
