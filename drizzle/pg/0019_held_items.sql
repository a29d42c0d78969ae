CREATE TABLE "ended_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"reason" text NOT NULL,
	"ended_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "held_items" (
	"id" text PRIMARY KEY NOT NULL,
	"centre_id" text NOT NULL,
	"worker_id" text,
	"worker_name" text NOT NULL,
	"kind" text NOT NULL,
	"idem_key" text NOT NULL,
	"reason" text NOT NULL,
	"fields" text NOT NULL,
	"file_key" text,
	"file_name" text,
	"file_type" text,
	"file_size" integer,
	"status" text DEFAULT 'held' NOT NULL,
	"handed_to" text,
	"handed_by" text,
	"handed_at" timestamp (3) with time zone,
	"result_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ended_sessions" ADD CONSTRAINT "ended_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "held_items" ADD CONSTRAINT "held_items_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "held_items" ADD CONSTRAINT "held_items_worker_id_users_id_fk" FOREIGN KEY ("worker_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "held_items" ADD CONSTRAINT "held_items_handed_to_users_id_fk" FOREIGN KEY ("handed_to") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "held_items" ADD CONSTRAINT "held_items_handed_by_users_id_fk" FOREIGN KEY ("handed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ended_sessions_user_idx" ON "ended_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "ended_sessions_expires_idx" ON "ended_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "held_items_worker_key_uq" ON "held_items" USING btree ("worker_id","idem_key");--> statement-breakpoint
CREATE INDEX "held_items_centre_idx" ON "held_items" USING btree ("centre_id","created_at","id");--> statement-breakpoint
CREATE INDEX "held_items_worker_status_idx" ON "held_items" USING btree ("worker_id","status");