import { type ReactNode, useEffect, useId, useState } from 'react';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from '@/components/ui/alert-dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';

export interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description: ReactNode;
  /** The confirm button's text, e.g. 'Delete provider'. */
  confirmLabel: ReactNode;
  /**
   * Runs on confirm. While its promise is pending the button shows a spinner and the dialog cannot
   * be dismissed; the caller closes it (through `onOpenChange`) when the work is done.
   */
  onConfirm: () => Promise<void> | void;
  /** A red confirm button, for what cannot be undone (default). */
  destructive?: boolean;
  cancelLabel?: string;
  /**
   * Type-to-confirm, for what is hard to undo (deleting a project): the confirm button works only
   * once this exact text (a name) has been typed.
   */
  confirmText?: string;
}

/** The one confirmation every screen asks before a destructive or far-reaching action. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  onConfirm,
  destructive = true,
  cancelLabel = 'Cancel',
  confirmText,
}: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [typed, setTyped] = useState('');
  const inputId = useId();
  // Each opening starts with an empty field.
  useEffect(() => {
    if (open) setTyped('');
  }, [open]);
  const matches = confirmText === undefined || typed.trim() === confirmText;
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
    }
  };
  return (
    <AlertDialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>{title}</AlertDialogTitle>
          <AlertDialogDescription>{description}</AlertDialogDescription>
        </AlertDialogHeader>
        {confirmText !== undefined ? (
          <div className="grid gap-2">
            <Label htmlFor={inputId} className="block font-normal text-muted-foreground leading-normal">
              Type <span className="break-all font-medium font-mono text-foreground">{confirmText}</span> to confirm.
            </Label>
            <Input
              id={inputId}
              autoComplete="off"
              spellCheck={false}
              value={typed}
              disabled={busy}
              onChange={(event) => setTyped(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && matches && !busy) {
                  event.preventDefault();
                  void confirm();
                }
              }}
            />
          </div>
        ) : null}
        <AlertDialogFooter>
          <AlertDialogCancel disabled={busy}>{cancelLabel}</AlertDialogCancel>
          <AlertDialogAction
            variant={destructive ? 'destructive' : 'default'}
            disabled={busy || !matches}
            onClick={(event) => {
              // Radix closes on Action; the caller decides when (and whether) to close.
              event.preventDefault();
              void confirm();
            }}
          >
            {busy ? <Spinner /> : null}
            {confirmLabel}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
