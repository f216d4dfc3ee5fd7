import type { GitProviderType } from '@launchbay/contract';
import { Github, Gitlab } from 'lucide-react';
import { cn } from '@/lib/utils';

export const GIT_PROVIDER_LABEL: Record<GitProviderType, string> = { github: 'GitHub', gitlab: 'GitLab' };

/** The host's mark in a rounded tile (GitHub or GitLab). */
export function GitProviderIcon({ type, className }: { type: GitProviderType; className?: string }) {
  const Icon = type === 'github' ? Github : Gitlab;
  return (
    <span
      aria-hidden
      className={cn(
        'flex size-10 shrink-0 items-center justify-center rounded-lg border bg-muted/50 text-foreground [&_svg]:size-5',
        type === 'gitlab' && 'text-orange-600 dark:text-orange-400',
        className,
      )}
    >
      <Icon />
    </span>
  );
}
