import { CheckIcon, CopyIcon } from 'lucide-react';
import { useEffect, useState } from 'react';
import { toast } from '@/lib/toast';
import { Button, type ButtonProps } from './button';

export function CopyButton({
  value,
  label = 'Copy',
  iconOnly = false,
  ...props
}: { value: string; label?: string; iconOnly?: boolean } & Omit<ButtonProps, 'onClick' | 'value'>) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      toast.error('Failed to copy', { description: 'Copy the text manually instead.' });
    }
  };

  return (
    <Button variant="outline" size="sm" onClick={copy} aria-label={label} {...props}>
      {copied ? <CheckIcon /> : <CopyIcon />}
      {iconOnly ? null : copied ? 'Copied' : label}
    </Button>
  );
}
