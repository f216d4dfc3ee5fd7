import { Page } from '@/components/layout/page';
import { Skeleton } from '@/components/ui/skeleton';
import { useCurrentUser } from '@/lib/current-user';
import { MfaCard } from './mfa-card';
import { PasswordCard } from './password-card';
import { ProfileCard } from './profile-card';

export default function AccountPage() {
  const { data: user } = useCurrentUser();
  return (
    <Page
      title="Account"
      documentTitle="Account"
      description="Manage your profile, password and sign-in security."
      className="max-w-3xl"
    >
      {user ? (
        <div className="grid gap-6">
          <ProfileCard user={user} />
          <PasswordCard />
          <MfaCard user={user} />
        </div>
      ) : (
        <Skeleton className="h-64 w-full rounded-xl" />
      )}
    </Page>
  );
}
