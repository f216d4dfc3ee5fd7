import { Construction } from 'lucide-react';
import { useMatches } from 'react-router';
import { EmptyState } from '@/components/layout/page';
import { useDocumentTitle } from '@/lib/document-title';

function titleOf(handle: unknown): string | undefined {
  return typeof handle === 'object' && handle !== null && typeof (handle as { title?: unknown }).title === 'string'
    ? (handle as { title: string }).title
    : undefined;
}

/** A project settings section not built yet: an honest placeholder inside the settings layout. */
export default function SettingsNotAvailable() {
  const matches = useMatches();
  const title =
    [...matches]
      .reverse()
      .map((match) => titleOf(match.handle))
      .find(Boolean) ?? 'Settings';
  useDocumentTitle(title);
  return (
    <section className="grid gap-4" aria-labelledby="settings-section-title">
      <h2 id="settings-section-title" className="font-semibold text-lg">
        {title}
      </h2>
      <EmptyState icon={<Construction />} title="Not available yet" description="This part of Launchbay is still being built." />
    </section>
  );
}
