DROP INDEX "proxy_logs_path_idx";--> statement-breakpoint
CREATE INDEX "proxy_logs_path_idx" ON "proxy_logs" USING btree ("path" text_pattern_ops);