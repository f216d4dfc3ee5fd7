import { useState } from 'react';
import { projectFaviconUrl } from '@/lib/projects';
import { cn } from '@/lib/utils';

/** Favicons that answered 404 in this session: do not ask again on every render. */
const missingFavicons = new Set<number>();

/** The project's favicon, falling back to the first letter of its name. */
export function ProjectAvatar({ project, className }: { project: { id: number; name: string }; className?: string }) {
  const [failed, setFailed] = useState(() => missingFavicons.has(project.id));
  const letter = project.name.trim().charAt(0).toUpperCase() || '?';
  return (
    <span
      className={cn(
        'flex size-5 shrink-0 items-center justify-center overflow-hidden rounded-sm border bg-background font-semibold text-[10px] text-muted-foreground',
        className,
      )}
    >
      {failed ? (
        <span aria-hidden="true">{letter}</span>
      ) : (
        <img
          src={projectFaviconUrl(project.id)}
          alt=""
          className="size-full object-contain"
          loading="lazy"
          onError={() => {
            missingFavicons.add(project.id);
            setFailed(true);
          }}
        />
      )}
    </span>
  );
}
