DROP INDEX "proxy_logs_host_idx";--> statement-breakpoint
DROP INDEX "proxy_logs_status_class_idx";--> statement-breakpoint
DROP INDEX "proxy_logs_client_ip_idx";--> statement-breakpoint
DROP INDEX "proxy_logs_project_idx";--> statement-breakpoint
CREATE INDEX "proxy_logs_filter_idx" ON "proxy_logs" USING gin ((ARRAY['h:' || host, 'i:' || client_ip, 'p:' || coalesce(project_id::text, '-'), 'e:' || coalesce(environment_id::text, '-'), 'c:' || status_class::text, 's:' || status::text])) WITH (fastupdate=true);