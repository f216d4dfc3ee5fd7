import { type ComponentType, useEffect, useState } from 'react';
import type { ToasterProps } from 'sonner';
import { setToasterMounter } from '@/lib/toast';
import { useTheme } from './theme';

function Mounted({ onMount }: { onMount: () => void }) {
  useEffect(() => onMount(), [onMount]);
  return null;
}

/** Renders sonner's Toaster once the first toast asks for it (see lib/toast.ts). */
export function ToasterHost() {
  const { resolvedTheme } = useTheme();
  const [host, setHost] = useState<{ Toaster: ComponentType<ToasterProps>; onMount: () => void } | null>(null);

  useEffect(() => {
    setToasterMounter(
      (sonner) =>
        new Promise<void>((resolve) => {
          setHost({ Toaster: sonner.Toaster, onMount: resolve });
        }),
    );
  }, []);

  if (!host) return null;
  const { Toaster, onMount } = host;
  return (
    <>
      <Toaster theme={resolvedTheme} position="bottom-right" richColors closeButton />
      <Mounted onMount={onMount} />
    </>
  );
}
