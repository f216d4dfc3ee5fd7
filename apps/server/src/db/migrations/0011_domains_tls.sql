CREATE TABLE "acme_accounts" (
	"directory_url" text PRIMARY KEY NOT NULL,
	"email" text,
	"key_sealed" text NOT NULL,
	"account_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "domain_orders" (
	"id" serial PRIMARY KEY NOT NULL,
	"domain_id" integer NOT NULL,
	"directory_url" text NOT NULL,
	"order_url" text NOT NULL,
	"status" text NOT NULL,
	"finalize_url" text NOT NULL,
	"challenges" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "domain_orders_domain_id_unique" UNIQUE("domain_id")
);
--> statement-breakpoint
CREATE TABLE "domains" (
	"id" serial PRIMARY KEY NOT NULL,
	"domain" text NOT NULL,
	"is_wildcard" boolean DEFAULT false NOT NULL,
	"challenge_type" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"last_error" text,
	"certificate_sealed" text,
	"key_sealed" text,
	"fingerprint" text,
	"issued_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"renewal_failures" integer DEFAULT 0 NOT NULL,
	"next_renewal_at" timestamp with time zone,
	"expiry_alerted_at" timestamp with time zone,
	"served_status" text,
	"served_fingerprint" text,
	"served_checked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "domains_domain_unique" UNIQUE("domain")
);
--> statement-breakpoint
ALTER TABLE "edge_route_table" ADD COLUMN "certificates" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "edge_route_table" ADD COLUMN "challenges" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "domain_orders" ADD CONSTRAINT "domain_orders_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;