import { useParams } from 'react-router';
import { NotAvailablePage } from './not-available-page';
import NotFoundPage from './not-found-page';

/** Spec section 2: /monitoring/{section} for project, domains, backups, routes, notifications or providers. */
const MONITORING_SECTIONS: Record<string, string> = {
  project: 'Project Health',
  domains: 'Domains',
  backups: 'Backups',
  routes: 'Routes',
  notifications: 'Notifications',
  providers: 'Providers',
};

export default function MonitoringSectionPage() {
  const { section = '' } = useParams();
  const label = MONITORING_SECTIONS[section];
  if (!label) return <NotFoundPage />;
  return <NotAvailablePage title="Monitoring & Alerts" subtitle={label} />;
}
