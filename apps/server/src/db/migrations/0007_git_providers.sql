CREATE TABLE "git_connections" (
	"id" serial PRIMARY KEY NOT NULL,
	"provider_id" integer NOT NULL,
	"account_login" text NOT NULL,
	"account_type" text DEFAULT 'User' NOT NULL,
	"external_account_id" text NOT NULL,
	"last_synced_at" timestamp with time zone,
	"sync_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "git_providers" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"provider_type" text NOT NULL,
	"auth_method" text NOT NULL,
	"base_url" text NOT NULL,
	"api_url" text NOT NULL,
	"token_sealed" text,
	"refresh_token_sealed" text,
	"token_expires_at" timestamp with time zone,
	"oauth_client_id" text,
	"oauth_client_secret_sealed" text,
	"oauth_state" text,
	"account_login" text,
	"scopes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"saved_by_admin" boolean DEFAULT false NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "git_providers_type_check" CHECK ("git_providers"."provider_type" IN ('github', 'gitlab')),
	CONSTRAINT "git_providers_auth_check" CHECK ("git_providers"."auth_method" IN ('pat', 'oauth'))
);
--> statement-breakpoint
CREATE TABLE "repositories" (
	"id" serial PRIMARY KEY NOT NULL,
	"connection_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"owner" text NOT NULL,
	"name" text NOT NULL,
	"full_name" text NOT NULL,
	"description" text,
	"default_branch" text NOT NULL,
	"private" boolean NOT NULL,
	"clone_url" text NOT NULL,
	"html_url" text NOT NULL,
	"pushed_at" timestamp with time zone,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"provider_type" text NOT NULL,
	"delivery_id" text,
	"event" text NOT NULL,
	"action" text,
	"ref" text,
	"commit_sha" text,
	"outcome" text NOT NULL,
	"detail" text NOT NULL,
	"deployment_id" integer,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_outcome_check" CHECK ("webhook_deliveries"."outcome" IN ('deployed', 'ignored', 'rejected', 'duplicate', 'failed', 'awaiting_approval', 'removed'))
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "git_connection_id" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "repository_id" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "repository_external_id" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "repository_full_name" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "webhook_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "webhook_hook_id" text;--> statement-breakpoint
ALTER TABLE "git_connections" ADD CONSTRAINT "git_connections_provider_id_git_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."git_providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_providers" ADD CONSTRAINT "git_providers_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repositories" ADD CONSTRAINT "repositories_connection_id_git_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."git_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "git_connections_account" ON "git_connections" USING btree ("provider_id","external_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "repositories_external" ON "repositories" USING btree ("connection_id","external_id");--> statement-breakpoint
CREATE INDEX "repositories_full_name" ON "repositories" USING btree ("full_name");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_delivery" ON "webhook_deliveries" USING btree ("project_id","delivery_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_project" ON "webhook_deliveries" USING btree ("project_id","id");--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_git_connection_id_git_connections_id_fk" FOREIGN KEY ("git_connection_id") REFERENCES "public"."git_connections"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE set null ON UPDATE no action;