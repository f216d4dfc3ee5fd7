CREATE TABLE "edge_route_table" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"routes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	CONSTRAINT "edge_route_table_single_row" CHECK ("edge_route_table"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "deployment_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"deployment_id" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"stream" text NOT NULL,
	"process" text,
	"line" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployment_steps" (
	"id" serial PRIMARY KEY NOT NULL,
	"deployment_id" integer NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"detail" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"environment_id" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"trigger" text NOT NULL,
	"branch" text NOT NULL,
	"requested_commit" text,
	"commit_sha" text,
	"commit_message" text,
	"commit_author" text,
	"source_deployment_id" integer,
	"plan" jsonb,
	"env_sealed" text,
	"artifact_dir" text,
	"artifact_bytes" bigint,
	"runtime" jsonb,
	"job_id" bigint,
	"error" text,
	"created_by" integer,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"building_at" timestamp with time zone,
	"deploying_at" timestamp with time zone,
	"ready_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"stopped_at" timestamp with time zone,
	CONSTRAINT "deployments_status_check" CHECK ("deployments"."status" IN ('queued', 'building', 'deploying', 'ready', 'failed', 'crashed', 'cancelled', 'paused'))
);
--> statement-breakpoint
CREATE TABLE "env_var_environments" (
	"env_var_id" integer NOT NULL,
	"environment_id" integer NOT NULL,
	CONSTRAINT "env_var_environments_env_var_id_environment_id_pk" PRIMARY KEY("env_var_id","environment_id")
);
--> statement-breakpoint
CREATE TABLE "env_vars" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"key" text NOT NULL,
	"value_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "environments" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"branch" text NOT NULL,
	"is_production" boolean DEFAULT false NOT NULL,
	"current_deployment_id" integer,
	"memory_mb" integer,
	"cpu_percent" integer,
	"instances" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "git_url" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "git_token_sealed" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "deploy_key_sealed" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "deploy_key_public" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "git_saved_by_admin" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "branch" text DEFAULT 'main' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "root_directory" text DEFAULT '.' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "preset" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "install_command" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "build_command" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "start_command" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "output_directory" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "port" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "automatic_deploy" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "deployment_logs" ADD CONSTRAINT "deployment_logs_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployment_steps" ADD CONSTRAINT "deployment_steps_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "env_var_environments" ADD CONSTRAINT "env_var_environments_env_var_id_env_vars_id_fk" FOREIGN KEY ("env_var_id") REFERENCES "public"."env_vars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "env_var_environments" ADD CONSTRAINT "env_var_environments_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "env_vars" ADD CONSTRAINT "env_vars_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "environments" ADD CONSTRAINT "environments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deployment_logs_deployment" ON "deployment_logs" USING btree ("deployment_id","id");--> statement-breakpoint
CREATE INDEX "deployment_logs_at" ON "deployment_logs" USING btree ("at");--> statement-breakpoint
CREATE INDEX "deployment_steps_deployment" ON "deployment_steps" USING btree ("deployment_id","id");--> statement-breakpoint
CREATE INDEX "deployments_project_created" ON "deployments" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "deployments_environment" ON "deployments" USING btree ("environment_id","id");--> statement-breakpoint
CREATE INDEX "env_var_environments_env" ON "env_var_environments" USING btree ("environment_id");--> statement-breakpoint
CREATE INDEX "env_vars_project" ON "env_vars" USING btree ("project_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "environments_project_slug" ON "environments" USING btree ("project_id","slug");--> statement-breakpoint
CREATE INDEX "environments_current_deployment" ON "environments" USING btree ("current_deployment_id");--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_port_range" CHECK ("projects"."port" IS NULL OR "projects"."port" BETWEEN 1 AND 65535);--> statement-breakpoint
INSERT INTO "edge_route_table" ("id", "version", "routes") VALUES (1, 0, '[]'::jsonb);
