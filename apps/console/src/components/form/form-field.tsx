import type { ReactNode } from 'react';
import { Checkbox } from '@/components/ui/checkbox';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';
import { Switch } from '@/components/ui/switch';
import { cn } from '@/lib/utils';

export interface FormFieldProps {
  /** The control's id: the label points at it. */
  id: string;
  label: ReactNode;
  /** Adds '(optional)' after the label. */
  optional?: boolean;
  /** Help under the control; hidden while an error shows unless `keepHint`. */
  hint?: ReactNode;
  /** Give the hint an id, for the control's aria-describedby. */
  hintId?: string;
  keepHint?: boolean;
  /** The field's validation message (shown with role="alert"). */
  error?: string;
  errorId?: string;
  className?: string;
  children: ReactNode;
}

/** One labelled form control with its error and hint: the field every console form uses. */
export function FormField({ id, label, optional, hint, hintId, keepHint, error, errorId, className, children }: FormFieldProps) {
  const showHint = hint && (keepHint || !error);
  return (
    <div className={cn('grid min-w-0 content-start gap-2', className)}>
      <Label htmlFor={id}>
        {label}
        {optional ? <span className="font-normal text-muted-foreground">(optional)</span> : null}
      </Label>
      {children}
      <FieldError id={errorId} message={error} />
      {showHint ? (
        <p id={hintId} className="text-muted-foreground text-xs">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

interface ToggleFieldProps {
  id: string;
  label: string;
  description: string;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  disabled?: boolean;
}

/** A switch with its label and description, for an on/off setting inside a form. */
export function SwitchField({ id, label, description, checked, onCheckedChange, disabled }: ToggleFieldProps) {
  return (
    <div className="flex items-start justify-between gap-4 rounded-lg border px-3 py-3">
      <div className="grid gap-1">
        <Label htmlFor={id}>{label}</Label>
        <p className="text-muted-foreground text-xs">{description}</p>
      </div>
      <Switch id={id} checked={checked} onCheckedChange={onCheckedChange} disabled={disabled} />
    </div>
  );
}

/** A checkbox with its label and description (the description is its accessible description). */
export function CheckboxField({ id, label, description, checked, onCheckedChange, disabled }: ToggleFieldProps) {
  return (
    <div className={cn('flex items-start gap-3', disabled && 'opacity-60')}>
      <Checkbox
        id={id}
        className="mt-0.5"
        checked={checked}
        disabled={disabled}
        onCheckedChange={(value) => onCheckedChange(value === true)}
        aria-describedby={`${id}-hint`}
      />
      <div className="grid gap-1">
        <Label htmlFor={id}>{label}</Label>
        <p id={`${id}-hint`} className="text-muted-foreground text-xs">
          {description}
        </p>
      </div>
    </div>
  );
}
