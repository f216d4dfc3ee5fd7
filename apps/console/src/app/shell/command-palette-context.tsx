import { createContext, type ReactNode, use, useEffect, useMemo, useState } from 'react';

interface CommandPaletteContextValue {
  open: boolean;
  setOpen: (open: boolean) => void;
}

const CommandPaletteContext = createContext<CommandPaletteContextValue | null>(null);

export function CommandPaletteProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() === 'k' && (event.metaKey || event.ctrlKey)) {
        event.preventDefault();
        setOpen((value) => !value);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  const value = useMemo(() => ({ open, setOpen }), [open]);
  return <CommandPaletteContext value={value}>{children}</CommandPaletteContext>;
}

export function useCommandPalette(): CommandPaletteContextValue {
  const context = use(CommandPaletteContext);
  if (!context) throw new Error('useCommandPalette must be used inside CommandPaletteProvider');
  return context;
}
