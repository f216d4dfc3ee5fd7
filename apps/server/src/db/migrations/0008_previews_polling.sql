ALTER TABLE "env_vars" ADD COLUMN "include_in_previews" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "host_label" text;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_number" integer;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_title" text;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_url" text;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_author" text;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_head_repo" text;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_head_sha" text;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_from_fork" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_state" text;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "pr_approved_by" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "git_polled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "previews_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "environments_project_pr" ON "environments" USING btree ("project_id","pr_number");--> statement-breakpoint
ALTER TABLE "environments" ADD CONSTRAINT "environments_pr_state_check" CHECK ("environments"."pr_state" IS NULL OR "environments"."pr_state" IN ('awaiting_approval', 'active', 'closed'));