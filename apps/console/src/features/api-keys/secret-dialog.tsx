import { ArrowRight, ShieldAlert } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import type { CreatedApiKey } from './api';

/**
 * Shows a new key's secret, the only time it is ever shown. It closes only through its button
 * (not by a stray click outside or Escape), so nobody loses the secret by accident.
 */
export function SecretDialog({ apiKey, onDone }: { apiKey: CreatedApiKey | null; onDone: () => void }) {
  const example = `curl -H "Authorization: Bearer $LAUNCHBAY_API_KEY" ${window.location.origin}/api/projects`;
  return (
    <Dialog open={apiKey !== null}>
      <DialogContent
        showCloseButton={false}
        className="sm:max-w-xl"
        onInteractOutside={(event) => event.preventDefault()}
        onEscapeKeyDown={(event) => event.preventDefault()}
      >
        <DialogHeader>
          <DialogTitle>API key created</DialogTitle>
          <DialogDescription>
            {apiKey?.name} is ready. Copy its secret now and store it somewhere safe, such as your CI secret store or a password
            manager.
          </DialogDescription>
        </DialogHeader>
        <div
          role="alert"
          className="flex gap-3 rounded-lg border border-warning/50 bg-warning/10 p-3 text-amber-800 text-sm dark:text-warning"
        >
          <ShieldAlert className="mt-0.5 size-4 shrink-0" />
          <p>
            <span className="font-medium">This secret will not be shown again.</span> Launchbay stores only a hash of it. If you
            lose it, delete the key and create a new one.
          </p>
        </div>
        <div className="grid gap-2">
          <p className="font-medium text-sm">Secret key</p>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
            <code
              data-testid="api-key-secret"
              className="min-w-0 flex-1 select-all break-all rounded-md border bg-muted/50 px-3 py-2 font-mono text-sm"
            >
              {apiKey?.secret}
            </code>
            <CopyButton value={apiKey?.secret ?? ''} label="Copy key" className="h-9" />
          </div>
        </div>
        <div className="grid gap-2">
          <p className="font-medium text-sm">Try it</p>
          <div className="flex items-start gap-2 rounded-lg border bg-muted/50 p-3">
            <code className="min-w-0 flex-1 break-all font-mono text-xs leading-relaxed">{example}</code>
            <CopyButton value={example} label="Copy command" iconOnly size="icon-sm" className="size-7 shrink-0" />
          </div>
        </div>
        <DialogFooter>
          <Button onClick={onDone}>
            I have stored the key
            <ArrowRight />
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
