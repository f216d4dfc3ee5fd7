import type { NotificationProvider } from '@launchbay/contract';
import { AlertTriangle, ArrowLeft, Save, Send, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { Page } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardFooter, CardHeader } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { useDocumentTitle } from '@/lib/document-title';
import { formatDateTime } from '@/lib/format';
import { PROVIDERS_PATH } from './add-provider-page';
import { useProvider } from './api';
import { EditProviderForm } from './edit-provider-form';
import { DeleteProviderDialog, useCanManageAlerts, useTestAction } from './provider-actions';
import { LastDelivery, ProviderIcon, ProviderTypeBadge } from './provider-parts';

const ID_PATTERN = /^[1-9]\d{0,9}$/;

function BackLink() {
  return (
    <Link to={PROVIDERS_PATH} className="inline-flex items-center gap-1 text-muted-foreground text-sm hover:text-foreground">
      <ArrowLeft className="size-4" />
      Back to Providers
    </Link>
  );
}

/** Spec section 2 'Edit provider page': the load-failure screen. */
function LoadFailure({ detail }: { detail?: string }) {
  useDocumentTitle('Edit Provider');
  const navigate = useNavigate();
  return (
    <div className="flex flex-1 items-center justify-center px-6 py-20">
      <div className="flex max-w-md flex-col items-center gap-3 text-center">
        <div className="flex size-12 items-center justify-center rounded-full bg-destructive/10 text-destructive">
          <AlertTriangle className="size-6" />
        </div>
        <h1 className="font-semibold text-xl tracking-tight">Provider not available</h1>
        <p className="text-muted-foreground text-sm">Failed to load provider. Please check the ID and try again.</p>
        {detail ? <p className="font-mono text-muted-foreground text-xs">{detail}</p> : null}
        <Button className="mt-3" onClick={() => navigate(PROVIDERS_PATH)}>
          <ArrowLeft />
          Back to Providers
        </Button>
      </div>
    </div>
  );
}

function EditProvider({ provider }: { provider: NotificationProvider }) {
  const navigate = useNavigate();
  const canManage = useCanManageAlerts();
  const test = useTestAction();
  const [deleting, setDeleting] = useState(false);

  return (
    <Page
      title={
        <span className="flex min-w-0 items-center gap-3">
          <ProviderIcon type={provider.provider_type} />
          <span className="truncate">{provider.name}</span>
        </span>
      }
      documentTitle="Edit Provider"
      description={
        <span className="flex flex-wrap items-center gap-2">
          Edit Provider
          <ProviderTypeBadge type={provider.provider_type} />
          {provider.enabled ? <Badge variant="success">Enabled</Badge> : <Badge variant="outline">Disabled</Badge>}
        </span>
      }
      back={<BackLink />}
      className="max-w-3xl"
      actions={
        <>
          <Button variant="outline" onClick={() => void test.run(provider)} disabled={!canManage || test.isPending}>
            {test.isPending ? <Spinner /> : <Send />}
            Test
          </Button>
          <Button
            variant="outline"
            className="text-destructive hover:text-destructive"
            onClick={() => setDeleting(true)}
            disabled={!canManage}
          >
            <Trash2 />
            Delete
          </Button>
        </>
      }
    >
      <Card className="gap-3 px-6 py-4">
        <LastDelivery delivery={provider.last_delivery} className="text-sm" />
        <p className="text-muted-foreground text-xs">
          Added {formatDateTime(provider.created_at)} · Last changed {formatDateTime(provider.updated_at)}
        </p>
      </Card>
      <Card>
        <CardHeader>
          <h2 className="font-semibold leading-none">Settings</h2>
        </CardHeader>
        <CardContent>
          <EditProviderForm provider={provider} disabled={!canManage}>
            {({ isSubmitting, isDirty }) => (
              <CardFooter className="flex-wrap justify-between gap-3 border-t px-0 pt-6">
                <p className="text-muted-foreground text-xs" aria-live="polite">
                  {isDirty
                    ? 'Unsaved changes. Test uses the saved settings.'
                    : 'Test sends a notification with the saved settings.'}
                </p>
                <Button type="submit" disabled={!canManage || !isDirty || isSubmitting}>
                  {isSubmitting ? <Spinner /> : <Save />}
                  Save
                </Button>
              </CardFooter>
            )}
          </EditProviderForm>
        </CardContent>
      </Card>
      <DeleteProviderDialog
        provider={provider}
        open={deleting}
        onOpenChange={setDeleting}
        onDeleted={() => navigate(PROVIDERS_PATH, { replace: true })}
      />
    </Page>
  );
}

export default function EditProviderPage() {
  const { id = '' } = useParams();
  const valid = ID_PATTERN.test(id);
  const { data: provider, isPending, isError, error } = useProvider(valid ? Number(id) : null);

  if (!valid) return <LoadFailure />;
  if (isError) return <LoadFailure detail={error instanceof Error ? error.message : undefined} />;
  if (isPending || !provider) {
    return (
      <Page title={<Skeleton className="h-8 w-56" />} documentTitle="Edit Provider" back={<BackLink />} className="max-w-3xl">
        <Skeleton className="h-14 rounded-xl" />
        <Skeleton className="h-96 rounded-xl" />
      </Page>
    );
  }
  return <EditProvider key={provider.id} provider={provider} />;
}
