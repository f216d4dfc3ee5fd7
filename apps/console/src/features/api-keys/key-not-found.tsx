import { KeyRound } from 'lucide-react';
import { Link } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { buttonVariants } from '@/components/ui/button';
import { BackToKeys } from './back-to-keys';

export function KeyNotFound({ id }: { id: string | undefined }) {
  return (
    <Page title="API key not found" documentTitle="API key not found" back={<BackToKeys />}>
      <EmptyState
        icon={<KeyRound />}
        title="This API key does not exist"
        description={
          <>
            There is no API key
            {id ? (
              <>
                {' '}
                with ID <span className="font-mono">{id}</span>
              </>
            ) : null}{' '}
            that you can see. It may have been deleted, or it belongs to another user.
          </>
        }
        action={
          <Link to="/keys" className={buttonVariants({ variant: 'outline' })}>
            Back to API Keys
          </Link>
        }
      />
    </Page>
  );
}
