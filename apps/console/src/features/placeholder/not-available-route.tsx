import { useMatches } from 'react-router';
import { NotAvailablePage } from '@/components/layout/not-available-page';

interface PlaceholderHandle {
  title: string;
  subtitle?: string;
}

function isPlaceholderHandle(value: unknown): value is PlaceholderHandle {
  return typeof value === 'object' && value !== null && typeof (value as PlaceholderHandle).title === 'string';
}

/** Route component for areas not built yet: reads its title from the route's handle. */
export default function NotAvailableRoute() {
  const matches = useMatches();
  const handle = [...matches].reverse().find((match) => isPlaceholderHandle(match.handle))?.handle;
  const { title, subtitle } = isPlaceholderHandle(handle) ? handle : { title: 'Not available yet', subtitle: undefined };
  return <NotAvailablePage title={title} subtitle={subtitle} />;
}
