import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Input } from '@/components/ui/input';
import { FormField } from './form-field';

describe('FormField', () => {
  it('labels its control and shows the hint while there is no error', () => {
    render(
      <FormField id="host" label="SMTP Host" hint="The server that sends mail.">
        <Input id="host" />
      </FormField>,
    );
    expect(screen.getByLabelText('SMTP Host')).toBe(screen.getByRole('textbox'));
    expect(screen.getByText('The server that sends mail.')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows the error as an alert in place of the hint, or beside it with keepHint', () => {
    const { rerender } = render(
      <FormField id="host" label="SMTP Host" hint="The server that sends mail." error="Required">
        <Input id="host" />
      </FormField>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Required');
    expect(screen.queryByText('The server that sends mail.')).not.toBeInTheDocument();
    rerender(
      <FormField id="host" label="SMTP Host" hint="The server that sends mail." hintId="host-hint" error="Required" keepHint>
        <Input id="host" aria-describedby="host-hint" />
      </FormField>,
    );
    expect(screen.getByRole('textbox')).toHaveAccessibleDescription('The server that sends mail.');
  });

  it('marks optional fields', () => {
    render(
      <FormField id="from-name" label="From Name" optional>
        <Input id="from-name" />
      </FormField>,
    );
    expect(screen.getByText('(optional)')).toBeInTheDocument();
  });
});
