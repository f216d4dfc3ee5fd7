import { Rocket } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';

/** What both ways of creating a project (a git URL, a connected repository) lay out the same way. */

export function Section({ title, description, children }: { title: string; description: ReactNode; children: ReactNode }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>{title}</CardTitle>
        <CardDescription>{description}</CardDescription>
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  );
}

/** Cancel and Deploy, with what the creation is doing while it runs. */
export function DeployActions({
  busy,
  progress,
  disabled = false,
}: {
  busy: boolean;
  progress?: string | null;
  disabled?: boolean;
}) {
  return (
    <div className="flex flex-col-reverse gap-2 sm:flex-row sm:items-center sm:justify-end">
      {busy && progress ? (
        <p className="text-muted-foreground text-sm sm:mr-auto" aria-live="polite">
          {progress}
        </p>
      ) : null}
      <Link to="/projects" className={buttonVariants({ variant: 'outline' })} aria-disabled={busy || undefined}>
        Cancel
      </Link>
      <Button type="submit" disabled={busy || disabled}>
        {busy ? <Spinner /> : <Rocket />}
        {busy ? 'Deploying…' : 'Deploy'}
      </Button>
    </div>
  );
}
