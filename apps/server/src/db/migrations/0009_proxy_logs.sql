CREATE TABLE "proxy_log_drops" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"first_at" timestamp (3) with time zone NOT NULL,
	"last_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "proxy_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"method" text NOT NULL,
	"host" text NOT NULL,
	"path" text NOT NULL,
	"query" text,
	"status" smallint NOT NULL,
	"status_class" smallint GENERATED ALWAYS AS (status / 100) STORED NOT NULL,
	"duration_ms" real NOT NULL,
	"bytes_in" bigint NOT NULL,
	"bytes_out" bigint NOT NULL,
	"client_ip" text NOT NULL,
	"user_agent" text,
	"referrer" text,
	"route" text,
	"project_id" integer,
	"environment_id" integer,
	"deployment_id" integer,
	"upstream" text,
	"tls_version" text
);
--> statement-breakpoint
CREATE INDEX "proxy_log_drops_last_idx" ON "proxy_log_drops" USING btree ("last_at");--> statement-breakpoint
CREATE INDEX "proxy_logs_time_idx" ON "proxy_logs" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "proxy_logs_host_idx" ON "proxy_logs" USING btree ("host","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "proxy_logs_status_class_idx" ON "proxy_logs" USING btree ("status_class","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "proxy_logs_client_ip_idx" ON "proxy_logs" USING btree ("client_ip","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "proxy_logs_project_idx" ON "proxy_logs" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "proxy_logs_path_idx" ON "proxy_logs" USING btree ("path" text_pattern_ops,"created_at" DESC NULLS LAST);