import { Card } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';

/** A list's placeholder while it loads: three rows of the given cell widths (tailwind classes). */
export function SkeletonRows({ label, cells }: { label: string; cells: string[] }) {
  return (
    <Card className="gap-0 p-0" aria-busy="true" aria-label={label}>
      {Array.from({ length: 3 }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={index} className="flex items-center gap-4 border-b p-4 last:border-0">
          {cells.map((cell, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            <Skeleton key={i} className={cell} />
          ))}
        </div>
      ))}
    </Card>
  );
}
