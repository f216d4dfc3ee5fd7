import { twMerge } from 'tailwind-merge';
import { registerClassMerger } from '@/lib/utils';

registerClassMerger(twMerge);

export default function AuthenticatedApp() {
  return <div>app</div>;
}
