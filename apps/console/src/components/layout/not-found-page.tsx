import { FileQuestion } from 'lucide-react';
import { Link } from 'react-router';
import { buttonVariants } from '@/components/ui/button';
import { useDocumentTitle } from '@/lib/document-title';

export default function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <div className="flex flex-1 items-center justify-center px-6 py-20">
      <div className="max-w-md text-center">
        <div className="mx-auto mb-5 flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
          <FileQuestion className="size-6" />
        </div>
        <p className="font-semibold text-5xl tracking-tight">404</p>
        <h1 className="mt-3 font-semibold text-xl tracking-tight">Page not found</h1>
        <p className="mt-2 text-muted-foreground text-sm">The page you are looking for does not exist or has been moved.</p>
        <Link to="/dashboard" className={buttonVariants({ className: 'mt-6' })}>
          Back to Dashboard
        </Link>
      </div>
    </div>
  );
}
