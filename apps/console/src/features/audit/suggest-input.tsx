import { type ComponentProps, type KeyboardEvent, useId, useMemo, useState } from 'react';
import { Input } from '@/components/ui/input';
import { cn } from '@/lib/utils';

export interface Suggestion {
  value: string;
  description?: string;
}

/**
 * A text input that suggests values as you type (ARIA combobox with a list box); free text is
 * still allowed. Arrow keys move, Enter picks, Escape closes.
 */
export function SuggestInput({
  id,
  value,
  onValueChange,
  suggestions,
  className,
  ...props
}: {
  id: string;
  value: string;
  onValueChange: (value: string) => void;
  suggestions: Suggestion[];
} & Omit<ComponentProps<'input'>, 'value' | 'onChange' | 'id'>) {
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const matches = useMemo(() => {
    const query = value.trim().toLowerCase();
    return suggestions
      .filter((s) => s.value !== value && (!query || s.value.toLowerCase().includes(query)))
      .sort((a, b) => Number(!a.value.startsWith(query)) - Number(!b.value.startsWith(query)))
      .slice(0, 8);
  }, [suggestions, value]);
  const shown = open && matches.length > 0;

  const pick = (suggestion: Suggestion) => {
    onValueChange(suggestion.value);
    // A prefix ('users.') invites typing on; a full action is done.
    setOpen(suggestion.value.endsWith('.'));
    setActive(-1);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setOpen(true);
      setActive((index) => (matches.length ? (index + 1) % matches.length : -1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      setActive((index) => (matches.length ? (index <= 0 ? matches.length - 1 : index - 1) : -1));
    } else if (event.key === 'Enter' && shown && active >= 0) {
      event.preventDefault();
      const suggestion = matches[active];
      if (suggestion) pick(suggestion);
    } else if (event.key === 'Escape' && shown) {
      event.preventDefault();
      setOpen(false);
      setActive(-1);
    }
  };

  return (
    <div className="relative">
      <Input
        id={id}
        role="combobox"
        autoComplete="off"
        spellCheck={false}
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={listId}
        aria-activedescendant={shown && active >= 0 ? `${listId}-${active}` : undefined}
        value={value}
        className={className}
        onChange={(event) => {
          onValueChange(event.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => {
          setOpen(false);
          setActive(-1);
        }}
        onKeyDown={onKeyDown}
        {...props}
      />
      <div
        id={listId}
        role="listbox"
        aria-label="Suggestions"
        hidden={!shown}
        className="absolute top-full right-0 left-0 z-50 mt-1 max-h-72 min-w-80 overflow-y-auto rounded-md border bg-popover p-1 text-popover-foreground shadow-md data-[state=open]:animate-in"
        data-state={shown ? 'open' : 'closed'}
      >
        {matches.map((suggestion, index) => (
          <div
            key={suggestion.value}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === active}
            tabIndex={-1}
            className={cn(
              'flex cursor-default select-none items-baseline justify-between gap-3 rounded-sm px-2 py-1.5 text-sm',
              index === active ? 'bg-accent text-accent-foreground' : 'hover:bg-accent/60',
            )}
            // Keep the focus in the input: pick on mouse down, before the blur closes the list.
            onMouseDown={(event) => {
              event.preventDefault();
              pick(suggestion);
            }}
            onMouseMove={() => setActive(index)}
          >
            <span className="font-mono text-xs">{suggestion.value}</span>
            {suggestion.description ? (
              <span className="truncate text-muted-foreground text-xs">{suggestion.description}</span>
            ) : null}
          </div>
        ))}
      </div>
    </div>
  );
}
