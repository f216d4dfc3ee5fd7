CREATE TABLE "lb_routes" (
	"id" serial PRIMARY KEY NOT NULL,
	"domain" text NOT NULL,
	"target_kind" text NOT NULL,
	"project_id" integer,
	"environment_id" integer,
	"upstreams" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"health_check_enabled" boolean DEFAULT true NOT NULL,
	"health_check_path" text DEFAULT '/' NOT NULL,
	"health_check_interval_seconds" integer DEFAULT 5 NOT NULL,
	"health_check_timeout_seconds" integer DEFAULT 2 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lb_routes_domain_unique" UNIQUE("domain")
);
--> statement-breakpoint
CREATE TABLE "lb_upstream_health" (
	"host" text NOT NULL,
	"upstream" text NOT NULL,
	"healthy" boolean NOT NULL,
	"error" text,
	"since" timestamp with time zone NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "lb_upstream_health_host_upstream_pk" PRIMARY KEY("host","upstream")
);
--> statement-breakpoint
ALTER TABLE "lb_routes" ADD CONSTRAINT "lb_routes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lb_routes" ADD CONSTRAINT "lb_routes_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;