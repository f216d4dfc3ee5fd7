CREATE TABLE "cron_executions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"cron_id" integer NOT NULL,
	"scheduled_for" timestamp with time zone NOT NULL,
	"trigger" text DEFAULT 'schedule' NOT NULL,
	"status" text NOT NULL,
	"deployment_id" integer,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"status_code" integer,
	"duration_ms" integer,
	"response_body" text,
	"error" text,
	CONSTRAINT "cron_executions_status_check" CHECK ("cron_executions"."status" IN ('running', 'succeeded', 'failed', 'skipped')),
	CONSTRAINT "cron_executions_trigger_check" CHECK ("cron_executions"."trigger" IN ('schedule', 'manual'))
);
--> statement-breakpoint
CREATE TABLE "cron_jobs" (
	"id" serial PRIMARY KEY NOT NULL,
	"environment_id" integer NOT NULL,
	"path" text NOT NULL,
	"schedule" text NOT NULL,
	"source" text DEFAULT 'console' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cron_jobs_source_check" CHECK ("cron_jobs"."source" IN ('console', 'launchbay.json'))
);
--> statement-breakpoint
ALTER TABLE "cron_executions" ADD CONSTRAINT "cron_executions_cron_id_cron_jobs_id_fk" FOREIGN KEY ("cron_id") REFERENCES "public"."cron_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cron_jobs" ADD CONSTRAINT "cron_jobs_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cron_executions_tick" ON "cron_executions" USING btree ("cron_id","scheduled_for");--> statement-breakpoint
CREATE INDEX "cron_executions_cron" ON "cron_executions" USING btree ("cron_id","id");--> statement-breakpoint
CREATE INDEX "cron_jobs_environment" ON "cron_jobs" USING btree ("environment_id");