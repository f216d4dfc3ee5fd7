import type { NotificationProvider, ProviderType } from '@launchbay/contract';
import { ArrowLeft, Check, CheckCircle2, ChevronRight, Mail, Plus, Slack, Sparkles } from 'lucide-react';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { Page } from '@/components/layout/page';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { type ProviderBody, useCreateProvider } from './api';
import { ADD_FAILED_MESSAGE, ADDED_MESSAGE } from './provider-actions';
import { EmailProviderForm, type ProviderFormState, SlackProviderForm } from './provider-form';
import { PROVIDER_TYPE_LABEL } from './provider-parts';
import { EMPTY_EMAIL_VALUES, EMPTY_SLACK_VALUES } from './provider-schema';

export const PROVIDERS_PATH = '/monitoring/providers';
/** Spec section 9: the wizard goes back to the providers list 2000 ms after success. */
export const WIZARD_REDIRECT_DELAY_MS = 2000;

type Step = 'select' | 'configure' | 'complete';

const STEPS: { id: Step; title: string }[] = [
  { id: 'select', title: 'Select Provider' },
  { id: 'configure', title: 'Configure' },
  { id: 'complete', title: 'Complete' },
];

function Stepper({ step }: { step: Step }) {
  const current = STEPS.findIndex((s) => s.id === step);
  return (
    <nav aria-label="Progress">
      <ol className="flex items-center gap-2">
        {STEPS.map((s, index) => {
          const done = index < current || step === 'complete';
          const active = index === current;
          return (
            <li key={s.id} className="flex min-w-0 items-center gap-2" aria-current={active ? 'step' : undefined}>
              <span
                className={cn(
                  'flex size-7 shrink-0 items-center justify-center rounded-full border font-medium text-xs transition-colors',
                  done && 'border-transparent bg-primary text-primary-foreground',
                  active && !done && 'border-foreground text-foreground',
                  !done && !active && 'text-muted-foreground',
                )}
              >
                {done ? <Check className="size-3.5" /> : index + 1}
              </span>
              <span
                className={cn(
                  'truncate text-sm',
                  active ? 'font-medium text-foreground' : 'text-muted-foreground',
                  !active && 'hidden sm:inline',
                )}
              >
                {s.title}
              </span>
              {index < STEPS.length - 1 ? <span aria-hidden className="h-px w-8 shrink-0 bg-border" /> : null}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

function Choice({
  icon,
  title,
  description,
  onSelect,
  disabled,
}: {
  icon: ReactNode;
  title: string;
  description: string;
  onSelect?: () => void;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      onClick={onSelect}
      disabled={disabled}
      className={cn(
        'flex items-start gap-4 rounded-xl border bg-card p-4 text-left shadow-xs outline-none transition-colors',
        'focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 disabled:cursor-not-allowed',
        disabled ? 'border-dashed opacity-60' : 'hover:bg-accent/40',
      )}
    >
      <span className="flex size-10 shrink-0 items-center justify-center rounded-lg border bg-muted/50 text-foreground">
        {icon}
      </span>
      <span className="grid min-w-0 flex-1 gap-1">
        <span className="font-semibold">{title}</span>
        <span className="text-muted-foreground text-sm">{description}</span>
      </span>
      {disabled ? null : <ChevronRight className="mt-3 size-4 shrink-0 text-muted-foreground" />}
    </button>
  );
}

/** Router state the Notifications tab passes: a Slack webhook to start from. */
function initialState(state: unknown): { type: ProviderType; webhookUrl: string } | null {
  if (typeof state !== 'object' || state === null) return null;
  const { type, webhookUrl } = state as { type?: unknown; webhookUrl?: unknown };
  if (type === 'slack' && typeof webhookUrl === 'string') return { type, webhookUrl };
  return null;
}

function CompleteStep({ provider }: { provider: NotificationProvider }) {
  const navigate = useNavigate();
  useEffect(() => {
    const timer = setTimeout(() => navigate(PROVIDERS_PATH), WIZARD_REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [navigate]);
  return (
    <Card className="items-center px-6 py-10 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-success/10 text-success">
        <CheckCircle2 className="size-6" />
      </div>
      <div className="grid gap-2">
        <h2 className="font-semibold text-xl tracking-tight">Provider Added Successfully!</h2>
        <p className="max-w-md text-muted-foreground text-sm">
          <span className="font-medium text-foreground">{provider.name}</span> will receive alerts from now on. Taking you back to
          your providers…
        </p>
      </div>
      <div className="flex items-center gap-2 text-muted-foreground text-xs">
        <Spinner className="size-3" label="Redirecting" />
        Redirecting
      </div>
      <Link to={PROVIDERS_PATH} className={buttonVariants({ variant: 'outline' })}>
        Go to Providers now
      </Link>
    </Card>
  );
}

export default function AddProviderPage() {
  const location = useLocation();
  const [preset] = useState(() => initialState(location.state));
  const [step, setStep] = useState<Step>(preset ? 'configure' : 'select');
  const [type, setType] = useState<ProviderType>(preset?.type ?? 'email');
  const [created, setCreated] = useState<NotificationProvider | null>(null);
  const create = useCreateProvider();

  const choose = (next: ProviderType) => {
    setType(next);
    setStep('configure');
  };

  /** Spec section 7: create bodies are name, enabled (true) and config. */
  const submit = async (body: ProviderBody<ProviderType>) => {
    try {
      const provider = await create.mutateAsync({ type, body: { ...body, enabled: true } });
      toast.success(ADDED_MESSAGE[type]);
      setCreated(provider);
      setStep('complete');
      return undefined;
    } catch (error) {
      toast.error(ADD_FAILED_MESSAGE[type], { description: errorDetail(error) });
      throw error;
    }
  };

  const footer = ({ isSubmitting }: ProviderFormState) => (
    <CardFooter className="justify-between gap-3 border-t px-0 pt-6">
      <Button variant="outline" onClick={() => setStep('select')} disabled={isSubmitting}>
        <ArrowLeft />
        Back
      </Button>
      <Button type="submit" disabled={isSubmitting}>
        {isSubmitting ? <Spinner /> : <Plus />}
        Add Provider
      </Button>
    </CardFooter>
  );

  return (
    <Page
      title="Add Provider"
      documentTitle="Add Provider"
      description="Connect a channel that Launchbay delivers alerts to."
      className="max-w-3xl"
      back={
        <Link to={PROVIDERS_PATH} className="inline-flex items-center gap-1 text-muted-foreground text-sm hover:text-foreground">
          <ArrowLeft className="size-4" />
          Back to Providers
        </Link>
      }
    >
      <Stepper step={step} />
      {step === 'select' ? (
        <section className="grid gap-3" aria-labelledby="choose-provider">
          <h2 id="choose-provider" className="font-medium text-sm">
            Choose where alerts should go
          </h2>
          <div className="grid gap-3 sm:grid-cols-2">
            <Choice
              icon={<Mail className="size-5" />}
              title="Email"
              description="Send alerts over SMTP to one or more addresses."
              onSelect={() => choose('email')}
            />
            <Choice
              icon={<Slack className="size-5" />}
              title="Slack"
              description="Post alerts to a channel with an incoming webhook."
              onSelect={() => choose('slack')}
            />
            <Choice
              icon={<Sparkles className="size-5" />}
              title="More Coming Soon"
              description="More channels are on the way."
              disabled
            />
          </div>
        </section>
      ) : step === 'configure' ? (
        <Card>
          <CardHeader>
            <CardTitle>Configure {PROVIDER_TYPE_LABEL[type]} provider</CardTitle>
            <CardDescription>
              {type === 'email'
                ? 'The SMTP server Launchbay sends through, and who receives the alerts.'
                : 'The Slack incoming webhook alerts are posted to.'}
            </CardDescription>
          </CardHeader>
          <CardContent>
            {type === 'email' ? (
              <EmailProviderForm mode="create" defaultValues={EMPTY_EMAIL_VALUES} onSubmit={submit}>
                {footer}
              </EmailProviderForm>
            ) : (
              <SlackProviderForm
                mode="create"
                defaultValues={{ ...EMPTY_SLACK_VALUES, webhook_url: preset?.webhookUrl ?? '' }}
                onSubmit={submit}
              >
                {footer}
              </SlackProviderForm>
            )}
          </CardContent>
        </Card>
      ) : created ? (
        <CompleteStep provider={created} />
      ) : null}
    </Page>
  );
}
