import { useLocation, useParams } from 'react-router';
import { NotAvailablePage } from '@/components/layout/not-available-page';
import { PROJECT_PAGES } from './project-pages';

/** /projects/{slug}/*: project detail areas arrive with projects; until then, an honest placeholder. */
export default function ProjectDetailPage() {
  const { slug = '' } = useParams();
  const { pathname } = useLocation();
  const base = `/projects/${encodeURIComponent(slug)}`;
  const rest = pathname.startsWith(base) ? pathname.slice(base.length).replace(/\/$/, '') : '';
  const page = PROJECT_PAGES.find((item) => item.path === rest);
  return <NotAvailablePage title={page?.title ?? 'Project'} subtitle={`Project: ${slug}`} />;
}
