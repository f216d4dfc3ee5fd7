import { useLocation, useParams } from 'react-router';
import { PROJECT_PAGES } from '@/app/navigation';
import { NotAvailablePage } from '@/features/placeholder/not-available-page';

/** /projects/{slug}/*: project detail areas arrive with projects; until then, an honest placeholder. */
export default function ProjectDetailPage() {
  const { slug = '' } = useParams();
  const { pathname } = useLocation();
  const base = `/projects/${encodeURIComponent(slug)}`;
  const rest = pathname.startsWith(base) ? pathname.slice(base.length).replace(/\/$/, '') : '';
  const page = PROJECT_PAGES.find((item) => item.path === rest);
  return <NotAvailablePage title={page?.title ?? 'Project'} subtitle={`Project: ${slug}`} />;
}
