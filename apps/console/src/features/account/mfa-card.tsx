import type { CurrentUser, MfaSetupResponse } from '@launchbay/contract';
import { KeyRound, ShieldCheck, ShieldOff } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { toast } from '@/lib/toast';
import { useMfaDisable, useMfaSetup, useMfaVerify } from './api';

const CODE_PATTERN = /^\d{6}$/;
const CODE_MESSAGE = 'Enter the 6-digit code from your authenticator app';

function CodeField({
  id,
  value,
  onChange,
  error,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>Verification code</Label>
      <Input
        id={id}
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        placeholder="123456"
        className="max-w-40 font-mono tracking-[0.3em]"
        value={value}
        aria-invalid={error ? true : undefined}
        onChange={(event) => onChange(event.target.value.replace(/\D/g, ''))}
      />
      <FieldError message={error} />
    </div>
  );
}

export function MfaCard({ user }: { user: CurrentUser }) {
  const setup = useMfaSetup();
  const verify = useMfaVerify();
  const disable = useMfaDisable();
  const [pending, setPending] = useState<MfaSetupResponse | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [disableOpen, setDisableOpen] = useState(false);
  const [disableCode, setDisableCode] = useState('');
  const [disableError, setDisableError] = useState<string>();

  const startSetup = async () => {
    try {
      const result = await setup.mutateAsync();
      setPending(result);
      setCode('');
      setCodeError(undefined);
    } catch (error) {
      toast.error('Failed to set up two-factor authentication', { description: errorDetail(error) });
    }
  };

  const submitVerify = async (event: FormEvent) => {
    event.preventDefault();
    if (!CODE_PATTERN.test(code)) {
      setCodeError(CODE_MESSAGE);
      return;
    }
    try {
      const result = await verify.mutateAsync(code);
      setPending(null);
      setRecoveryCodes(result.recovery_codes);
      toast.success('Two-factor authentication enabled');
    } catch (error) {
      toast.error('Failed to verify code', { description: errorDetail(error) });
    }
  };

  const submitDisable = async (event: FormEvent) => {
    event.preventDefault();
    if (!CODE_PATTERN.test(disableCode)) {
      setDisableError(CODE_MESSAGE);
      return;
    }
    try {
      await disable.mutateAsync(disableCode);
      setDisableOpen(false);
      setDisableCode('');
      toast.success('Two-factor authentication turned off');
    } catch (error) {
      toast.error('Failed to turn off two-factor authentication', { description: errorDetail(error) });
    }
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Two-factor authentication</CardTitle>
        <CardDescription>Require a code from an authenticator app when you sign in.</CardDescription>
        <CardAction>
          {user.mfa_enabled ? (
            <Badge variant="success">
              <ShieldCheck />
              Enabled
            </Badge>
          ) : (
            <Badge variant="secondary">
              <ShieldOff />
              Off
            </Badge>
          )}
        </CardAction>
      </CardHeader>
      <CardContent className="grid gap-5">
        {recoveryCodes ? (
          <div className="grid gap-3 rounded-lg border border-warning/40 bg-warning/5 p-4">
            <div className="flex items-center gap-2 font-medium text-sm">
              <KeyRound className="size-4" />
              Save your recovery codes
            </div>
            <p className="text-muted-foreground text-sm">
              Each code signs you in once if you lose your authenticator. They are shown only now.
            </p>
            <ul className="grid grid-cols-2 gap-2 font-mono text-sm sm:grid-cols-3" aria-label="Recovery codes">
              {recoveryCodes.map((recovery) => (
                <li key={recovery} className="rounded-md border bg-background px-2 py-1 text-center">
                  {recovery}
                </li>
              ))}
            </ul>
            <div className="flex flex-wrap gap-2">
              <CopyButton value={recoveryCodes.join('\n')} label="Copy recovery codes" />
              <Button size="sm" onClick={() => setRecoveryCodes(null)}>
                I saved them
              </Button>
            </div>
          </div>
        ) : pending ? (
          <form onSubmit={submitVerify} className="grid gap-5 md:grid-cols-[auto_1fr]">
            <img
              src={pending.qr_code}
              alt="QR code for your authenticator app"
              className="size-44 rounded-lg border bg-white p-2"
            />
            <div className="grid content-start gap-4">
              <div className="grid gap-1.5 text-sm">
                <p className="font-medium">1. Scan the QR code</p>
                <p className="text-muted-foreground">Use an authenticator app, or enter this secret by hand:</p>
                <div className="flex flex-wrap items-center gap-2">
                  <code className="break-all rounded-md border bg-muted/50 px-2 py-1 font-mono text-xs">{pending.secret}</code>
                  <CopyButton value={pending.secret} label="Copy secret" />
                </div>
              </div>
              <div className="grid gap-1.5 text-sm">
                <p className="font-medium">2. Enter the code it shows</p>
                <CodeField
                  id="mfa-setup-code"
                  value={code}
                  error={codeError}
                  onChange={(value) => {
                    setCode(value);
                    setCodeError(undefined);
                  }}
                />
              </div>
              <div className="flex gap-2">
                <Button type="submit" disabled={verify.isPending}>
                  {verify.isPending ? <Spinner /> : null}
                  Verify and enable
                </Button>
                <Button variant="ghost" onClick={() => setPending(null)}>
                  Cancel
                </Button>
              </div>
            </div>
          </form>
        ) : user.mfa_enabled ? (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-muted-foreground text-sm">Your account asks for a code at every sign-in.</p>
            <Button variant="outline" onClick={() => setDisableOpen(true)}>
              Turn off
            </Button>
          </div>
        ) : (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-muted-foreground text-sm">Protect your account with a second factor.</p>
            <Button onClick={() => void startSetup()} disabled={setup.isPending}>
              {setup.isPending ? <Spinner /> : <ShieldCheck />}
              Set up two-factor authentication
            </Button>
          </div>
        )}
      </CardContent>

      <Dialog
        open={disableOpen}
        onOpenChange={(open) => {
          setDisableOpen(open);
          setDisableCode('');
          setDisableError(undefined);
        }}
      >
        <DialogContent className="sm:max-w-md">
          <form onSubmit={submitDisable} className="grid gap-4">
            <DialogHeader>
              <DialogTitle>Turn off two-factor authentication?</DialogTitle>
              <DialogDescription>
                Enter a current code from your authenticator app to confirm. Your recovery codes stop working.
              </DialogDescription>
            </DialogHeader>
            <CodeField
              id="mfa-disable-code"
              value={disableCode}
              error={disableError}
              onChange={(value) => {
                setDisableCode(value);
                setDisableError(undefined);
              }}
            />
            <DialogFooter>
              <Button variant="outline" onClick={() => setDisableOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" variant="destructive" disabled={disable.isPending}>
                {disable.isPending ? <Spinner /> : null}
                Turn off
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </Card>
  );
}
