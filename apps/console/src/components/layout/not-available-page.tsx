import { Construction } from 'lucide-react';
import { Link } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { buttonVariants } from '@/components/ui/button';

/** Honest placeholder for areas that are not built yet: no invented data. */
export function NotAvailablePage({ title, subtitle }: { title: string; subtitle?: string }) {
  return (
    <Page title={title} documentTitle={title} description={subtitle}>
      <EmptyState
        icon={<Construction />}
        title="Not available yet"
        description="This part of Launchbay is still being built."
        action={
          <Link to="/dashboard" className={buttonVariants({ variant: 'outline' })}>
            Back to Dashboard
          </Link>
        }
      />
    </Page>
  );
}
