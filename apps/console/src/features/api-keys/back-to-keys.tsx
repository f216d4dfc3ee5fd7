import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router';

export function BackToKeys({ to = '/keys', label = 'API Keys' }: { to?: string; label?: string }) {
  return (
    <Link
      to={to}
      className="inline-flex w-fit items-center gap-1.5 rounded-sm text-muted-foreground text-sm outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring/50"
    >
      <ArrowLeft className="size-4" />
      {label}
    </Link>
  );
}
