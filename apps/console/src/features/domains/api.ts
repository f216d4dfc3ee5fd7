import {
  type Domain,
  type DomainOrder,
  domainListResponseSchema,
  domainOrderSchema,
  domainSchema,
  type HttpChallengeDebug,
  httpChallengeDebugSchema,
} from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';
import { retryServerErrors } from '@/lib/project-queries';
import { DOMAIN_POLL_MS, DOMAINS_LIST_POLL_MS } from './model';

export type { Domain, DomainOrder, HttpChallengeDebug };

export const domainsKey = ['domains'] as const;
export const domainKey = (ref: string | number) => [...domainsKey, 'detail', String(ref)] as const;

/** Every call takes the domain by its id or by its name. */
const domainApiPath = (ref: string | number) => `/domains/${encodeURIComponent(String(ref))}`;

/** Every domain with its certificate; followed while one is provisioning. */
export function useDomains() {
  return useQuery({
    queryKey: domainsKey,
    queryFn: ({ signal }) => api('/domains', { signal, response: domainListResponseSchema }),
    select: (data) => data.domains,
    retry: retryServerErrors,
    refetchInterval: (query) =>
      query.state.data?.domains.some((domain) => domain.status === 'provisioning') ? DOMAINS_LIST_POLL_MS : false,
  });
}

/**
 * One domain by id or name. Polled every 2 s while it is provisioning, and while `follow` says a job
 * started here is not done with it yet.
 */
export function useDomain(ref: string | undefined, options: { follow?: (domain: Domain) => boolean } = {}) {
  const { follow } = options;
  return useQuery({
    queryKey: domainKey(ref ?? ''),
    queryFn: ({ signal }) => api(domainApiPath(ref ?? ''), { signal, response: domainSchema }),
    enabled: Boolean(ref),
    retry: retryServerErrors,
    refetchInterval: (query) => {
      const domain = query.state.data;
      if (!domain) return false;
      return domain.status === 'provisioning' || follow?.(domain) ? DOMAIN_POLL_MS : false;
    },
  });
}

/**
 * Keeps the cache in step with an answer: the domain by its id, and every other domain query read
 * again (the list; the same domain opened by its name).
 */
function useStoreDomain() {
  const queryClient = useQueryClient();
  return (domain: Domain) => {
    const key = domainKey(domain.id);
    queryClient.setQueryData(key, domain);
    void queryClient.invalidateQueries({
      queryKey: domainsKey,
      predicate: (query) => query.queryKey[1] !== key[1] || query.queryKey[2] !== key[2],
    });
  };
}

/** Every domain query read again (after a call whose answer is not the domain). */
function useRefreshDomains() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: domainsKey });
}

export function useCreateDomain() {
  const store = useStoreDomain();
  return useMutation({
    mutationFn: (body: { domain: string }) => api('/domains', { method: 'POST', body, response: domainSchema }),
    onSuccess: (domain) => store(domain),
  });
}

/** POST provision or renew: 202 with the domain as it was; the job runs in the background. */
export function useDomainJob(kind: 'provision' | 'renew') {
  const store = useStoreDomain();
  return useMutation({
    mutationFn: (ref: string | number) => api(`${domainApiPath(ref)}/${kind}`, { method: 'POST', response: domainSchema }),
    onSuccess: (domain) => store(domain),
  });
}

export function useDeleteDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (ref: string | number) => api(domainApiPath(ref), { method: 'DELETE' }),
    // Only the list: the page of the deleted domain is left before it could read a 404.
    onSettled: () => queryClient.invalidateQueries({ queryKey: domainsKey, exact: true }),
  });
}

/** The order as the CA sees it now: the challenge statuses are stored on the domain again. */
export function useRefreshOrder() {
  const refreshDomains = useRefreshDomains();
  return useMutation({
    mutationFn: (ref: string | number) => api(`${domainApiPath(ref)}/order`, { response: domainOrderSchema }),
    onSettled: refreshDomains,
  });
}

export function useCancelOrder() {
  const refreshDomains = useRefreshDomains();
  return useMutation({
    mutationFn: (ref: string | number) => api(`${domainApiPath(ref)}/order`, { method: 'DELETE' }),
    onSettled: refreshDomains,
  });
}

/**
 * Has the CA validate the order and issues the certificate. A missing TXT record is a 400 whose
 * first error says which record to create; the domain is read again either way (a refusal by the
 * CA marks it failed).
 */
export function useFinalizeOrder() {
  const store = useStoreDomain();
  const refreshDomains = useRefreshDomains();
  return useMutation({
    mutationFn: (ref: string | number) => api(`${domainApiPath(ref)}/order/finalize`, { method: 'POST', response: domainSchema }),
    onSuccess: (domain) => store(domain),
    onError: refreshDomains,
  });
}

/** Why an HTTP-01 validation would fail now (DNS, port 80, the token), asked on demand. */
export function useHttpChallengeDebug() {
  return useMutation({
    mutationFn: (ref: string | number) =>
      api(`${domainApiPath(ref)}/http-challenge-debug`, { response: httpChallengeDebugSchema }),
  });
}
